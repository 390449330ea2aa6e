# What an installed transgrad ships for building extensions against it (no checkout needed):
#   transgrad/include/           csrc headers, and generated/ (kernel_decls.h, the shipped
#                                formula modules' headers, transgrad_version.h), and pybind11/
#                                (the headers transgrad was built with: Note [Version check])
#   transgrad/share/cmake/transgrad/transgradConfig.cmake   find_package(transgrad CONFIG)
#   transgrad/_build_config.py   compiler, options and versions, for transgrad.extension (JIT)
# Included by CMakeLists.txt after the targets are defined.

install(DIRECTORY csrc/ DESTINATION transgrad/include FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${TG_GEN}/ DESTINATION transgrad/include/generated
        FILES_MATCHING PATTERN "*.h" PATTERN "ops.h" EXCLUDE PATTERN "*.tmp" EXCLUDE)
install(FILES ${TG_GEN}/transgrad_version.h DESTINATION transgrad/include/generated)
install(DIRECTORY ${pybind11_INCLUDE_DIR}/pybind11 DESTINATION transgrad/include)

# The options every translation unit of transgrad was compiled with, as one list.
string(TOUPPER "${CMAKE_BUILD_TYPE}" TG_BUILD_TYPE_UPPER)
separate_arguments(TG_FLAGS_LIST UNIX_COMMAND
  "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${TG_BUILD_TYPE_UPPER}}")
set(TG_EXTENSION_CXX_OPTIONS -std=c++17 -fPIC -fvisibility=hidden ${TG_FLAGS_LIST} ${TG_CXX_OPTIONS})
list(JOIN TG_EXTENSION_CXX_OPTIONS "\", \"" TG_EXTENSION_CXX_OPTIONS_PY)
list(JOIN TG_EXTENSION_CXX_OPTIONS " " TG_EXTENSION_CXX_OPTIONS_CMAKE)
set(TG_PYBIND11_VERSION "${pybind11_VERSION}")
configure_file(cmake/build_config.py.in ${PROJECT_BINARY_DIR}/_build_config.py @ONLY)
configure_file(cmake/transgradConfig.cmake.in ${PROJECT_BINARY_DIR}/transgradConfig.cmake @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/transgradConfigVersion.cmake
  VERSION ${TG_VERSION} COMPATIBILITY ExactVersion)
install(FILES ${PROJECT_BINARY_DIR}/_build_config.py DESTINATION transgrad)
install(FILES ${PROJECT_BINARY_DIR}/transgradConfig.cmake
              ${PROJECT_BINARY_DIR}/transgradConfigVersion.cmake
        DESTINATION transgrad/share/cmake/transgrad)
