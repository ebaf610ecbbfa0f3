# Writes the provenance file and installs the bundle:
#   <dest>/include/{cub,thrust,cuda,nv}
#   <dest>/include/cuda_coop                        cuda-coop's own headers (include/cuda_coop of this repository),
#                                                   for C++ projects using the CMake package (find_package(CCCL))
#   <dest>/lib/cmake/{cccl,cub,thrust,libcudacxx}   CCCL's package, header-search files generated
#   <dest>/licenses/                                CCCL's license files
#   <dest>/provenance.json
#   <dest>/__init__.py                              makes the bundle the `cmake.prefix` entry point

function(cuda_coop_write_provenance)
  configure_file("${CMAKE_CURRENT_SOURCE_DIR}/cmake/provenance.json.in"
    "${CMAKE_CURRENT_BINARY_DIR}/provenance.json" @ONLY)
endfunction()

function(_cuda_coop_generate_header_search out_dir)
  # Each sets the cache variable that CCCL's <component>-config.cmake reads, by a probe header.
  foreach(_comp cub thrust libcudacxx)
    if(_comp STREQUAL "cub")
      set(_var _CUB_VERSION_INCLUDE_DIR)
      set(_probe cub/version.cuh)
    elseif(_comp STREQUAL "thrust")
      set(_var _THRUST_VERSION_INCLUDE_DIR)
      set(_probe thrust/version.h)
    else()
      set(_var _libcudacxx_VERSION_INCLUDE_DIR)
      set(_probe cuda/std/detail/__config)
    endif()
    configure_file("${CMAKE_CURRENT_SOURCE_DIR}/cmake/header-search.cmake.in"
      "${out_dir}/${_comp}/${_comp}-header-search.cmake" @ONLY)
  endforeach()
endfunction()

function(cuda_coop_install_bundle)
  set(_dest "${CUDA_COOP_BUNDLE_DESTINATION}")
  foreach(_top cub thrust cuda nv)
    set(_found "")
    foreach(_inc IN LISTS CUDA_COOP_CCCL_INCLUDE_DIRS)
      if(IS_DIRECTORY "${_inc}/${_top}")
        set(_found "${_inc}/${_top}")
        break()
      endif()
    endforeach()
    if(NOT _found)
      message(FATAL_ERROR "cuda-coop: no ${_top}/ header folder in ${CUDA_COOP_CCCL_INCLUDE_DIRS}.")
    endif()
    install(DIRECTORY "${_found}" DESTINATION "${_dest}/include")
  endforeach()
  # cuda-coop's compositions of CUB classes; the Python package carries the same files in cuda/coop/_include
  # (pyproject.toml), which is where providers compile them from.
  install(DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/include/cuda_coop" DESTINATION "${_dest}/include")

  set(_gen "${CMAKE_CURRENT_BINARY_DIR}/cmake-package")
  _cuda_coop_generate_header_search("${_gen}")
  foreach(_comp cccl cub thrust libcudacxx)
    install(DIRECTORY "${CUDA_COOP_CCCL_CMAKE_DIR}/${_comp}/" DESTINATION "${_dest}/lib/cmake/${_comp}"
      PATTERN "*header-search*" EXCLUDE)
  endforeach()
  install(DIRECTORY "${_gen}/" DESTINATION "${_dest}/lib/cmake")

  foreach(_l IN LISTS CUDA_COOP_CCCL_LICENSES)
    set(_sub "")
    if(CUDA_COOP_CCCL_SOURCE_ROOT)   # keep cub/LICENSE.TXT apart from the top-level LICENSE
      file(RELATIVE_PATH _rel "${CUDA_COOP_CCCL_SOURCE_ROOT}" "${_l}")
      get_filename_component(_sub "${_rel}" DIRECTORY)
    endif()
    install(FILES "${_l}" DESTINATION "${_dest}/licenses/${_sub}")
  endforeach()
  install(FILES "${CMAKE_CURRENT_BINARY_DIR}/provenance.json" DESTINATION "${_dest}")
  install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/cmake/bundle_init.py" DESTINATION "${_dest}" RENAME __init__.py)
endfunction()
