// The raw kernels: exactly one function per entry of translator/signatures.py, declared by
// the translator from that table (<build>/generated/kernel_decls.h, translator/emit_kernels.py),
// with the type mapping of docs/ARCHITECTURE.md. They follow Note [Kernel conventions] in
// signatures.py: no autograd, inputs never mutated, broadcasting and dtype promotion
// (bool < int64 < float32 < float64), negative dims, errors as tg::ValueError/IndexError/TypeError.
// Every kernel returns a fresh Tensor handle (never its input's handle); view kernels share
// their input's storage. Implementations: unary.cpp, binary.cpp, creation.cpp, reduce.cpp,
// shape.cpp, index.cpp, linalg.cpp, conv.cpp, pool.cpp, nn_misc.cpp, diagonal.cpp.
#pragma once

#include "kernel_decls.h"        // generated: every declaration of signatures.py
#include "kernels/kernels_nn.h"  // helpers of the neural-network kernels (window geometry)
