# install.cmake — the one list of what `cmake --install BUILD --prefix P` puts under P (GNUInstallDirs):
#   bin/kfront, bin/kfront-opt                 the tools
#   include/kfront/*.h                         the public headers (every one, by glob; internal headers never)
#   lib/libkfront.so.*, lib/libkfront.a        the library, shared (self-contained) and static
#   lib/cmake/kfront/                          find_package(kfront CONFIG): kfront::kfront (the .so) and
#                                              kfront::kfront_static (the .a, LLVM inside; system libraries)
#   lib/pkgconfig/kfront.pc                    pkg-config: -lkfront; --static adds what the .a needs
# Everything is relocatable: the CMake files find the prefix from their own location, kfront.pc from
# ${pcfiledir}. Tests, benchmarks and unit tests are not installed.
include(CMakePackageConfigHelpers)
set(KFRONT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kfront)

foreach(tool kfront kfront-opt)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

file(GLOB kfront_public_headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/kfront/*.h)
install(FILES ${kfront_public_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kfront)

install(TARGETS kfront_shared kfront_static EXPORT kfrontTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

# The CMake package: kfrontConfig.cmake, kfrontConfigVersion.cmake, kfrontTargets*.cmake.
install(EXPORT kfrontTargets NAMESPACE kfront:: DESTINATION ${KFRONT_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/kfrontConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/kfrontConfig.cmake INSTALL_DESTINATION ${KFRONT_CMAKE_DIR})
# 0.x releases are compatible only within the same minor version (as the SONAME says), later ones within a major.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(kfront_compat SameMinorVersion)
else()
  set(kfront_compat SameMajorVersion)
endif()
write_basic_package_version_file(${CMAKE_BINARY_DIR}/kfrontConfigVersion.cmake COMPATIBILITY ${kfront_compat})
install(FILES ${CMAKE_BINARY_DIR}/kfrontConfig.cmake ${CMAKE_BINARY_DIR}/kfrontConfigVersion.cmake
        DESTINATION ${KFRONT_CMAKE_DIR})

# kfront.pc: the prefix relative to the .pc file's own folder; Libs.private is libkfront.a's link interface.
function(kfront_pc_dir var dir)  # an install dir as the .pc spells it: ${prefix}/DIR, or DIR when absolute
  if(IS_ABSOLUTE "${dir}")
    set(${var} "${dir}" PARENT_SCOPE)
  else()
    set(${var} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()
set(KFRONT_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH KFRONT_PC_PREFIX /_prefix/${KFRONT_PC_DIR} /_prefix)
string(REGEX REPLACE "/$" "" KFRONT_PC_PREFIX "\${pcfiledir}/${KFRONT_PC_PREFIX}")
kfront_pc_dir(KFRONT_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR})
kfront_pc_dir(KFRONT_PC_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
set(KFRONT_PC_LIBS_PRIVATE)  # LLVM is inside libkfront.a: only the system libraries (no build machine's path)
foreach(lib ${LLVM_SYSTEM_LIBS})
  list(APPEND KFRONT_PC_LIBS_PRIVATE -l${lib})
endforeach()
list(JOIN KFRONT_PC_LIBS_PRIVATE " " KFRONT_PC_LIBS_PRIVATE)
configure_file(${CMAKE_CURRENT_LIST_DIR}/kfront.pc.in ${CMAKE_BINARY_DIR}/kfront.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/kfront.pc DESTINATION ${KFRONT_PC_DIR})
