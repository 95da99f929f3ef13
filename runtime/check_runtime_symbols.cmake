# cmake -DNM=nm -DLIBRARY=libruntime_<path>.a -DNAMES=kernel_names_<path>.txt -P this
# Fails when LIBRARY defines a global (non-weak) symbol that NAMES, the
# renaming map built from kiln/kernel_table.def, does not rename.
execute_process(COMMAND ${NM} -g --defined-only ${LIBRARY}
                OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}")
endif()
file(STRINGS ${NAMES} renames)
set(known "")
foreach(line ${renames})
  string(REGEX REPLACE " .*" "" symbol "${line}")
  list(APPEND known ${symbol})
endforeach()
string(REPLACE "\n" ";" lines "${listing}")
set(unlisted "")
foreach(line ${lines})
  # "<address> <type> <name>"; weak definitions (V, W) may repeat across copies.
  if(line MATCHES "^[0-9a-fA-F]+ ([A-UX-Z]) ([^ ]+)$")
    list(FIND known ${CMAKE_MATCH_2} at)
    if(at EQUAL -1)
      list(APPEND unlisted ${CMAKE_MATCH_2})
    endif()
  endif()
endforeach()
if(unlisted)
  string(REPLACE ";" " " unlisted "${unlisted}")
  message(FATAL_ERROR "${LIBRARY} defines global symbols that kiln/kernel_table.def does not "
                      "list (a kernel, its checker, or a KILN_SHARED_FUNCTION): ${unlisted}")
endif()
