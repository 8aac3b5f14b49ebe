#include "llmsim/scenario/reference.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "llmsim/scenario/loader.hpp"
#include "llmsim/scenario/sections.hpp"

namespace llmsim::scenario {

namespace {

std::string child_path(const std::string& parent, const std::string& key) { return parent.empty() ? key : parent + "." + key; }

ReferenceNode node_of(const Field& f, const std::string& parent) {
  ReferenceNode n;
  n.path = child_path(parent, f.key);
  n.field = f;
  n.field.children.clear();
  for (const auto& c : f.children) n.children.push_back(node_of(c, n.path));
  return n;
}

ReferenceNode family_node(const Family& fam, const std::string& parent) {
  const auto members = fam.members();
  std::vector<std::string> names;
  for (const auto& m : members) names.push_back(m.name);
  const Field field = Field::object(fam.key, {Field::choice("name", names, fam.help).with_default(fam.fallback)},
                                    fam.help)
                          .with_default(EmptyObject{});
  ReferenceNode n = node_of(field, parent);
  for (const auto& m : members) {
    ReferenceMember rm{m.name, m.description, {}};
    for (const auto& p : m.params) rm.params.push_back(node_of(p, n.path));
    n.members.push_back(std::move(rm));
  }
  return n;
}

/// Per preset of section `n`: the required fields (no default) of the section that the preset does not set.
std::map<std::string, std::vector<std::string>> preset_needs(const ReferenceNode& n) {
  std::map<std::string, std::vector<std::string>> needs;
  for (const auto& name : n.presets) {
    const auto preset = load_preset(n.preset_folder, name, n.path);
    for (const auto& c : n.children)
      if (!c.field.default_value && !c.is_family() && !preset.contains(c.field.key)) needs[name].push_back(c.field.key);
  }
  return needs;
}

std::vector<std::string> all_kinds(const FieldList& top) {
  for (const auto& f : top)
    if (f.key == "kind") return f.allowed;
  return {};
}

}  // namespace

ReferenceNode scenario_reference() {
  ReferenceNode root;
  root.field = Field::object("", {}, "an llmsim scenario");
  const FieldList top = top_level_fields();
  const auto kinds = all_kinds(top);
  for (auto f : top) {
    f.children = section_fields(f.key);
    ReferenceNode n = node_of(f, "");
    for (const auto& k : kinds)
      if (section_allowed(f.key, k)) n.kinds.push_back(k);
    if (n.kinds.size() == kinds.size()) n.kinds.clear();
    for (const auto& ps : preset_sections())
      if (f.key == ps.section) {
        n.preset_folder = ps.folder;
        n.presets = list_presets(ps.folder);
        n.preset_needs = preset_needs(n);
      }
    root.children.push_back(std::move(n));
  }
  for (const auto& fam : families()) {
    ReferenceNode* parent = &root;
    for (auto& c : root.children)
      if (c.field.key == fam.section) parent = &c;
    ReferenceNode n = family_node(fam, parent->path);
    auto slot = std::find_if(parent->children.begin(), parent->children.end(),
                             [&](const ReferenceNode& c) { return c.field.key == fam.key; });
    if (slot == parent->children.end()) {
      parent->children.push_back(std::move(n));
    } else {
      n.field.help = slot->field.help;  // the section's own wording (e.g. routing's "llmsim list routing")
      n.kinds = slot->kinds;
      *slot = std::move(n);
    }
  }
  return root;
}

std::string format_reference_number(double v) {
  std::ostringstream os;
  if (std::floor(v) == v && std::fabs(v) < 1e15) {
    os << static_cast<long long>(v);
  } else {
    os.precision(15);
    os << v;
  }
  return os.str();
}

}  // namespace llmsim::scenario
