#pragma once
// The optimizer's state and its step's memory traffic per parameter (training.optimizer), for the memory model
// (workload/memory.hpp), the optimizer step's time (workload/training.cpp) and the checkpoint size
// (run/fault_run.cpp). e = bytes of training.precision (model/precision.hpp); a 16-bit run (e < 4) keeps master
// weights beside its weights, an fp32 run updates its weights in place. s = bytes of the state's precision
// (training.optimizer_state_precision): 4 (fp32), or 2 (bf16: apex contrib DistributedFusedAdam's `dtype`, "datatype
// for optimizer state", which NeMo sets through optim.dtype, e.g. NeMo-Framework-Launcher
// conf/training/nemotron/nemotron_340b.yaml; its parameter copy is state too).
//   adam   state 2s (+ s master): the moments m and v (Kingma and Ba 2015, Algorithm 1); at fp32 with the master
//          weights the mixed-precision K = 12 of Rajbhandari et al. 2020, Sec. 3.1.
//          step: reads the fp32 gradient (4), reads and writes the master weights (2s; an fp32 run its fp32
//          weights, 8) and both moments (4s), and writes the e-byte copy if e < 4: at fp32 state 28 (+ e) bytes
//   sgd    plain SGD without momentum (torch.optim.SGD's default momentum 0, as FlowMoE's training script
//          uses it: ZJU-CNLAB/FlowMoE dist_train/train_w_FlowMoE_BO_V2.py): state 0 (+ s master);
//          step: 4 + 2s + e bytes (an fp32 run: 4 + 8)
#include <string>
#include <vector>

#include "llmsim/model/precision.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::model {

/// The names training.optimizer accepts.
const std::vector<std::string>& optimizer_names();
/// Optimizer state bytes per parameter (the master weights included) for `optimizer` ("adam" | "sgd") whose state
/// is kept in `state` (fp32 or bf16).
double optimizer_state_bytes(const std::string& optimizer, Precision training, Precision state);
/// Bytes the optimizer step reads and writes per parameter.
double optimizer_step_bytes(const std::string& optimizer, Precision training, Precision state);
/// The two above for a scenario's training (its optimizer, precision and optimizer_state_precision).
double optimizer_state_bytes(const scenario::Scenario& s);
double optimizer_step_bytes(const scenario::Scenario& s);

}  // namespace llmsim::model
