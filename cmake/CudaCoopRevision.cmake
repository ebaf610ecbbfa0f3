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

set(_CUDA_COOP_REVISION_MAX_LENGTH 255)

# Any Git-style revision or ref name is accepted (a commit, v3.6.0, release/3.6, main@{u}, ...); only
# what cannot be recorded as one token is refused: whitespace (it cannot be empty or contain any),
# control characters, and more than _CUDA_COOP_REVISION_MAX_LENGTH characters.
function(_cuda_coop_validate_revision_token token)
  string(LENGTH "${token}" _len)
  string(ASCII 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 127 _ctl)
  set(_why "")
  if(token MATCHES "[ ${_ctl}]")
    set(_why "it contains whitespace or a control character")
  elseif(_len GREATER _CUDA_COOP_REVISION_MAX_LENGTH)
    set(_why "it is ${_len} characters long (at most ${_CUDA_COOP_REVISION_MAX_LENGTH})")
  endif()
  if(_why)
    message(FATAL_ERROR "cuda-coop: CUDA_COOP_CCCL_SOURCE_REVISION='${token}' is not a valid revision "
      "token: ${_why}. Use a Git revision or ref name as Git prints it (for example 3f1c2ab, v3.6.0 or "
      "release/3.6), or leave it empty to derive the revision from Git.")
  endif()
endfunction()

# The token as a JSON string body (provenance.json is written by configure_file).
function(_cuda_coop_json_escape value out_var)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  set(${out_var} "${value}" PARENT_SCOPE)
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
  _cuda_coop_json_escape("${_rev}" _rev_json)
  set(CUDA_COOP_CCCL_REVISION "${_rev}" PARENT_SCOPE)
  set(CUDA_COOP_CCCL_REVISION_JSON "${_rev_json}" PARENT_SCOPE)
  set(CUDA_COOP_CCCL_REVISION_NOTE "${_note}" PARENT_SCOPE)
  message(STATUS "cuda-coop: CCCL source revision ${_rev} (${_note})")
endfunction()
