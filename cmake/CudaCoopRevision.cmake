# Decides the CCCL source revision recorded in the bundle's provenance:
#   CUDA_COOP_CCCL_REVISION       a Git commit, the CUDA_COOP_CCCL_SOURCE_REVISION token, or "unknown"
#   CUDA_COOP_CCCL_REVISION_NOTE  how it was decided (recorded next to it)
#
# Rules (docs/configuration.rst, "Build-time CMake variables"):
# - A Git checkout must be clean in every bundled input (no changed, untracked or ignored
#   files) and verifiable by `git status`; otherwise configuring fails, unless
#   CUDA_COOP_ALLOW_DIRTY_HEADER_BUNDLE is ON, which records "unknown".
# - CUDA_COOP_CCCL_SOURCE_REVISION replaces the Git-derived token; it is validated, and a
#   dirty or unverifiable worktree still records "unknown".
# - An installed CCCL has no worktree: it records the token if one is given, else "unknown".

set(_CUDA_COOP_REVISION_REGEX "^[A-Za-z0-9][A-Za-z0-9._+-]*$")

function(_cuda_coop_validate_revision_token token)
  string(LENGTH "${token}" _len)
  if(NOT token MATCHES "${_CUDA_COOP_REVISION_REGEX}" OR _len GREATER 128)
    message(FATAL_ERROR "cuda-coop: CUDA_COOP_CCCL_SOURCE_REVISION='${token}' is not a valid revision "
      "token. Use a Git commit, tag or version: 1 to 128 characters from [A-Za-z0-9._+-], starting "
      "with a letter or digit (for example 3f1c2ab or v3.6.0).")
  endif()
endfunction()

# Sets <out_state> to CLEAN, DIRTY or UNVERIFIABLE, <out_detail> to the reason, <out_head> to HEAD.
function(_cuda_coop_git_state src inputs out_state out_detail out_head)
  if(NOT GIT_EXECUTABLE)
    find_package(Git QUIET)
  endif()
  if(NOT GIT_EXECUTABLE OR NOT EXISTS "${GIT_EXECUTABLE}")
    set(${out_state} UNVERIFIABLE PARENT_SCOPE)
    set(${out_detail} "Git is not available (GIT_EXECUTABLE='${GIT_EXECUTABLE}')" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${src}" rev-parse --verify HEAD
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _head ERROR_VARIABLE _err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    string(STRIP "${_err}" _err)
    set(${out_state} UNVERIFIABLE PARENT_SCOPE)
    set(${out_detail} "'git rev-parse HEAD' failed in ${src}: ${_err}" PARENT_SCOPE)
    return()
  endif()
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" -C "${src}" status --porcelain=v1 --untracked-files=all --ignored
            -- ${inputs}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _status ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    string(STRIP "${_err}" _err)
    set(${out_state} UNVERIFIABLE PARENT_SCOPE)
    set(${out_detail} "'git status' failed in ${src}: ${_err}" PARENT_SCOPE)
    return()
  endif()
  set(${out_head} "${_head}" PARENT_SCOPE)
  string(STRIP "${_status}" _status)
  if(_status)
    string(REPLACE "\n" "\n    " _status "${_status}")
    set(${out_state} DIRTY PARENT_SCOPE)
    set(${out_detail} "bundled inputs of ${src} differ from HEAD ${_head}:\n    ${_status}" PARENT_SCOPE)
  else()
    set(${out_state} CLEAN PARENT_SCOPE)
    set(${out_detail} "" PARENT_SCOPE)
  endif()
endfunction()

function(cuda_coop_resolve_revision)
  set(_token "${CUDA_COOP_CCCL_SOURCE_REVISION}")
  if(NOT _token STREQUAL "")
    _cuda_coop_validate_revision_token("${_token}")
  endif()
  if(CUDA_COOP_CCCL_KIND STREQUAL "package")
    if(_token STREQUAL "")
      set(_rev unknown)
      set(_note "installed CCCL package; no CUDA_COOP_CCCL_SOURCE_REVISION given")
    else()
      set(_rev "${_token}")
      set(_note "CUDA_COOP_CCCL_SOURCE_REVISION")
    endif()
  else()
    _cuda_coop_git_state("${CUDA_COOP_CCCL_SOURCE_ROOT}" "${CUDA_COOP_CCCL_INPUTS}" _state _detail _head)
    if(_state STREQUAL "CLEAN")
      if(_token STREQUAL "")
        set(_rev "${_head}")
        set(_note "git HEAD")
      else()
        set(_rev "${_token}")
        set(_note "CUDA_COOP_CCCL_SOURCE_REVISION")
      endif()
    elseif(CUDA_COOP_ALLOW_DIRTY_HEADER_BUNDLE)
      set(_rev unknown)
      string(TOLOWER "${_state}" _what)
      set(_note "${_what} worktree allowed by CUDA_COOP_ALLOW_DIRTY_HEADER_BUNDLE")
      message(WARNING "cuda-coop: ${_detail}\nCUDA_COOP_ALLOW_DIRTY_HEADER_BUNDLE is ON: "
        "bundling anyway and recording the revision as 'unknown'.")
    elseif(_state STREQUAL "DIRTY")
      message(FATAL_ERROR "cuda-coop: the CCCL checkout is dirty: ${_detail}\n"
        "Commit or remove these changes, or configure with -DCUDA_COOP_ALLOW_DIRTY_HEADER_BUNDLE=ON "
        "to bundle them anyway (the revision is then recorded as 'unknown').")
    else()
      message(FATAL_ERROR "cuda-coop: cannot verify the CCCL checkout: ${_detail}\n"
        "Bundle a Git checkout of CCCL with Git installed, or configure with "
        "-DCUDA_COOP_ALLOW_DIRTY_HEADER_BUNDLE=ON to bundle it anyway (the revision is then "
        "recorded as 'unknown').")
    endif()
  endif()
  set(CUDA_COOP_CCCL_REVISION "${_rev}" PARENT_SCOPE)
  set(CUDA_COOP_CCCL_REVISION_NOTE "${_note}" PARENT_SCOPE)
  message(STATUS "cuda-coop: CCCL source revision ${_rev} (${_note})")
endfunction()
