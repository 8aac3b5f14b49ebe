#pragma once
// The optimizer's state and its step's memory traffic per parameter (training.optimizer), for the memory model
// (workload/memory.hpp), the optimizer step's time (workload/training.cpp) and the checkpoint size
// (run/fault_run.cpp). e = bytes of training.precision (model/precision.hpp); a 16-bit run (e < 4) keeps fp32
// master weights beside its weights, an fp32 run updates its weights in place.
//   adam   state 8 (+ 4 master): the fp32 moments m and v (Kingma and Ba 2015, Algorithm 1); with the master
//          weights the mixed-precision K = 12 of Rajbhandari et al. 2020, Sec. 3.1.
//          step: reads the fp32 gradient (4), reads and writes the fp32 weights (8) and both moments (16), and
//          writes the e-byte copy if e < 4: 28 (+ e) bytes
//   sgd    plain SGD without momentum (torch.optim.SGD's default momentum 0, as FlowMoE's training script
//          uses it: ZJU-CNLAB/FlowMoE dist_train/train_w_FlowMoE_BO_V2.py): state 0 (+ 4 master);
//          step: 4 + 8 (+ e) bytes
#include <string>
#include <vector>

#include "llmsim/model/precision.hpp"

namespace llmsim::model {

/// The names training.optimizer accepts.
const std::vector<std::string>& optimizer_names();
/// Optimizer state bytes per parameter (the master weights included) for `optimizer` ("adam" | "sgd").
double optimizer_state_bytes(const std::string& optimizer, Precision training);
/// Bytes the optimizer step reads and writes per parameter.
double optimizer_step_bytes(const std::string& optimizer, Precision training);

}  // namespace llmsim::model
