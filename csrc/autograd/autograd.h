// Everything generated code and hand-written ops need from the autograd core.
#pragma once

#include "autograd/accumulate_grad.h"
#include "autograd/engine.h"
#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "autograd/saved_variable.h"
#include "autograd/variable.h"
