# SPDX-License-Identifier: MIT
# CPack: `cpack -G DEB` in a build directory makes contextlens_<version>_<arch>.deb from the install
# rules (cmake/Install.cmake, app/CMakeLists.txt). Depends come from dpkg-shlibdeps (package dpkg-dev).
# scripts/ci-package.sh builds it and installs it in a fresh Debian 12 chroot.
set(CPACK_PACKAGE_NAME contextlens)
set(CPACK_PACKAGE_VENDOR "ContextLens")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "inspector for LLM-agent transcripts: where the context goes")
set(CPACK_PACKAGE_DESCRIPTION
    "ContextLens opens LLM-agent conversation transcripts (Claude Code, Codex CLI
and Gemini CLI sessions; Anthropic, OpenAI and Gemini API histories) and shows
where the context goes: every message and content block, tool calls paired
with their results, exact and estimated token sizes, the measured context per
turn, compactions, and every problem found in the file. It previews, compares
and replays compaction strategies; contextlens-cli gives the same reports on
the command line.")
set(CPACK_PACKAGE_INSTALL_DIRECTORY contextlens)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)

set(CONTEXTLENS_PACKAGE_MAINTAINER "ContextLens maintainers <maintainers@users.noreply.a-seed-36504135.example>"
    CACHE STRING "Maintainer field of the Debian package")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${CONTEXTLENS_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # contextlens_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The SVG window and desktop icon are drawn by Qt's SVG plugins.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libqt6svg6")
set(CONTEXTLENS_HOMEPAGE "" CACHE STRING "Homepage field of the Debian package (optional)")
if(CONTEXTLENS_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${CONTEXTLENS_HOMEPAGE})
endif()

include(CPack)
