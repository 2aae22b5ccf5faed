# portable.cmake — KFRONT_PORTABLE_LINUX: kfront's binaries (libkfront.so, the Python extension, the tools) built on
# Debian 12 that run on glibc 2.28 and later with no libstdc++, libtinfo or zlib of the machine: what the
# manylinux_2_28 wheel needs (docs/python.md, "The wheel"; scripts/build_wheel.sh). For a binary T,
# kfront_portable(T) links into it
#   - libstdc++, zlib and libgcc statically (-static-libgcc; -lstdc++ and -lz find the static archives first in
#     <build>/portable-libs), their symbols hidden as LLVM's are (--exclude-libs,ALL);
#   - libtinfo.a of packaging/tinfo_stub.c (the terminal-colour queries of LLVM, answered "no terminfo");
#   - packaging/glibc_compat.c (and glibc_compat_exe.c for an executable): every glibc symbol whose default version
#     is newer than 2.28, pinned to its old version or shimmed (-Wl,--wrap for each marker of the files), and
#     DT_NEEDED entries for libpthread.so.0 and libdl.so.2, where glibc 2.28 keeps the pinned pthread and dl
#     functions.
# ctest's packaging/portable (test/install/check_portable.sh) checks the binaries; packaging/glibc-compat runs the
# wrappers. On by default on x86-64 glibc 2.34 and later (older glibc needs none of it), off in the sanitizer build
# (the sanitizers intercept the functions the wrappers pin).
set(kf_portable_default OFF)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$" AND NOT KFRONT_SANITIZE
   AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
  execute_process(COMMAND getconf GNU_LIBC_VERSION OUTPUT_VARIABLE kf_glibc OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  if(kf_glibc MATCHES "^glibc 2\\.([0-9]+)" AND CMAKE_MATCH_1 GREATER_EQUAL 34)
    set(kf_portable_default ON)
  endif()
endif()
option(KFRONT_PORTABLE_LINUX "Binaries that run on glibc 2.28 and later (x86-64; packaging/portable.cmake)"
       ${kf_portable_default})
if(NOT KFRONT_PORTABLE_LINUX)
  function(kfront_portable target)
  endfunction()
  return()
endif()
if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$" OR KFRONT_SANITIZE)
  message(FATAL_ERROR "KFRONT_PORTABLE_LINUX is for x86-64 without KFRONT_SANITIZE")
endif()

# the archives -lstdc++ and -lz find first (ld searches each -L folder for lib<name>.so, then lib<name>.a)
set(KFRONT_PORTABLE_LIBDIR ${CMAKE_BINARY_DIR}/portable-libs)
file(MAKE_DIRECTORY ${KFRONT_PORTABLE_LIBDIR})
foreach(archive libstdc++.a libz.a)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${archive} OUTPUT_VARIABLE path
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${path}")
    message(FATAL_ERROR "KFRONT_PORTABLE_LINUX: no ${archive} (libstdc++-12-dev, zlib1g-dev)")
  endif()
  file(CREATE_LINK ${path} ${KFRONT_PORTABLE_LIBDIR}/${archive} SYMBOLIC)
endforeach()
add_library(kfront_tinfo_stub STATIC ${CMAKE_SOURCE_DIR}/packaging/tinfo_stub.c)
set_target_properties(kfront_tinfo_stub PROPERTIES OUTPUT_NAME tinfo ARCHIVE_OUTPUT_DIRECTORY ${KFRONT_PORTABLE_LIBDIR})

# the wrapped symbols: the KF_PIN / KF_SHIM markers of the files, one per line
function(kf_compat_wraps file out)
  file(STRINGS ${file} lines REGEX "^KF_(PIN|SHIM)\\([A-Za-z0-9_]+")
  set(wraps)
  foreach(line ${lines})
    string(REGEX REPLACE "^KF_(PIN|SHIM)\\(([A-Za-z0-9_]+).*" "\\2" sym "${line}")
    list(APPEND wraps "-Wl,--wrap=${sym}")
  endforeach()
  set(${out} ${wraps} PARENT_SCOPE)
endfunction()
kf_compat_wraps(${CMAKE_SOURCE_DIR}/packaging/glibc_compat.c KFRONT_COMPAT_WRAPS)
kf_compat_wraps(${CMAKE_SOURCE_DIR}/packaging/glibc_compat_exe.c KFRONT_COMPAT_EXE_WRAPS)
set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_SOURCE_DIR}/packaging/glibc_compat.c ${CMAKE_SOURCE_DIR}/packaging/glibc_compat_exe.c)

function(kfront_portable target)
  get_target_property(type ${target} TYPE)
  target_sources(${target} PRIVATE ${CMAKE_SOURCE_DIR}/packaging/glibc_compat.c)
  set(wraps ${KFRONT_COMPAT_WRAPS})
  if(type STREQUAL "EXECUTABLE")
    target_sources(${target} PRIVATE ${CMAKE_SOURCE_DIR}/packaging/glibc_compat_exe.c)
    list(APPEND wraps ${KFRONT_COMPAT_EXE_WRAPS})
  endif()
  target_link_options(${target} PRIVATE -L${KFRONT_PORTABLE_LIBDIR} -static-libgcc ${wraps})
  target_link_libraries(${target} PRIVATE -Wl,--exclude-libs,ALL
                        -Wl,--push-state,--no-as-needed -l:libpthread.so.0 -l:libdl.so.2 -Wl,--pop-state)
  add_dependencies(${target} kfront_tinfo_stub)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${KFRONT_PORTABLE_LIBDIR}/libtinfo.a)
endfunction()
