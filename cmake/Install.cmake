# SPDX-License-Identifier: MIT
# `cmake --install`: what a desktop installation needs besides the two programs (app/CMakeLists.txt):
# the desktop entry, icon, AppStream metainfo and MIME type under one reverse-DNS id, the BPE
# vocabularies, the demo transcript and the price table. The vocabularies are found at run time
# relative to the executable (<prefix>/bin/../share/contextlens/vocab, core/tokens/bpe.cpp:
# vocabSearchDirs).
include(GNUInstallDirs)

set(CONTEXTLENS_APP_ID io.github.contextlens.ContextLens CACHE INTERNAL "Desktop id of the app: desktop file, icon, metainfo")
set(CONTEXTLENS_DATADIR ${CMAKE_INSTALL_DATADIR}/contextlens)

set(_res ${PROJECT_SOURCE_DIR}/resources)
install(FILES ${_res}/${CONTEXTLENS_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${_res}/${CONTEXTLENS_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${_res}/contextlens.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
        RENAME ${CONTEXTLENS_APP_ID}.svg)
# *.jsonl has no MIME type in Debian 12's shared-mime-info: ours (application/jsonl).
install(FILES ${_res}/${CONTEXTLENS_APP_ID}.mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME ${CONTEXTLENS_APP_ID}.xml)
install(FILES ${_res}/demo/demo-session.jsonl DESTINATION ${CONTEXTLENS_DATADIR}/demo)
# The price table (core/llm/pricing.h reads <prefix>/share/contextlens/prices.json before its built-in
# copy, so an installation's figures can be edited; users override them in ~/.config/contextlens/).
install(FILES ${_res}/prices.json DESTINATION ${CONTEXTLENS_DATADIR})

# The exact BPE vocabularies, fetched into <build>/vocab by scripts/fetch-vocab.sh (setup.sh runs it
# before configuring). Without them the installed app falls back to the estimator.
set(CONTEXTLENS_VOCAB_SOURCE_DIR ${PROJECT_BINARY_DIR}/vocab CACHE PATH "Directory of the .tiktoken vocabularies to install")
if(NOT EXISTS ${CONTEXTLENS_VOCAB_SOURCE_DIR}/o200k_base.tiktoken OR NOT EXISTS ${CONTEXTLENS_VOCAB_SOURCE_DIR}/cl100k_base.tiktoken)
  message(STATUS "No BPE vocabularies in ${CONTEXTLENS_VOCAB_SOURCE_DIR} (scripts/fetch-vocab.sh ${CONTEXTLENS_VOCAB_SOURCE_DIR}): "
                  "an installation made now has no exact token counts.")
endif()
install(DIRECTORY ${CONTEXTLENS_VOCAB_SOURCE_DIR}/ DESTINATION ${CONTEXTLENS_DATADIR}/vocab OPTIONAL
        FILES_MATCHING PATTERN "*.tiktoken")
unset(_res)
