// Anomaly mode, Python side (Note [Anomaly mode] in csrc/autograd/node.h): the capture the engine
// calls when a node is made under detect_anomaly(). It records the Python stack of the calling
// thread as plain C++ data (file, line, function of each frame: no Python object is kept, so a
// node may die anywhere without the GIL); the text, source lines included, is made only when an
// error needs it, by transgrad._api.anomaly (the same formatting as the reference engine).
#include <algorithm>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "python/common.h"

namespace tg::python {

namespace {

struct Frame {
  std::string file;
  int line;
  std::string function;
};

struct PyStackTrace final : autograd::AnomalyMetadata {
  std::vector<Frame> frames;  // outermost first

  std::string format() const override {
    if (!Py_IsInitialized()) return "";
    AcquireGil gil;
    try {
      py::list fs;
      for (const Frame& f : frames) fs.append(py::make_tuple(f.file, f.line, f.function));
      return py::module_::import("transgrad._api.anomaly")
          .attr("format_frames")(fs)
          .cast<std::string>();
    } catch (py::error_already_set& e) {
      return "  (the forward traceback could not be formatted: " + std::string(e.what()) + ")\n";
    }
  }
};

std::string utf8(PyObject* s) {
  if (s == nullptr || !PyUnicode_Check(s)) return "?";
  const char* c = PyUnicode_AsUTF8(s);
  if (c == nullptr) {
    PyErr_Clear();
    return "?";
  }
  return c;
}

std::unique_ptr<autograd::AnomalyMetadata> capture_python_stack() {
  if (!Py_IsInitialized()) return nullptr;
  AcquireGil gil;  // a node made in a backward (create_graph) runs without it
  auto trace = std::make_unique<PyStackTrace>();
  PyFrameObject* frame = PyThreadState_GetFrame(PyThreadState_Get());  // new reference
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);  // new reference
    trace->frames.push_back(
        {utf8(code->co_filename), PyFrame_GetLineNumber(frame), utf8(code->co_name)});
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
  }
  std::reverse(trace->frames.begin(), trace->frames.end());
  return trace;
}

// A UserWarning from the engine's thread (Note [Anomaly mode]); a warning filter that turns it
// into an error is ignored here: the backward's own error is the one raised.
void warn_python(const std::string& message) {
  if (!Py_IsInitialized()) return;
  AcquireGil gil;
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) PyErr_Clear();
}

}  // namespace

void init_anomaly() {
  autograd::set_anomaly_capture(&capture_python_stack);
  autograd::set_anomaly_warn(&warn_python);
}

}  // namespace tg::python
