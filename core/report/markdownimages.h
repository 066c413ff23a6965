// SPDX-License-Identifier: MIT
#pragma once

// Remote images in Markdown (issue 29, finding 13): a viewer loads `![alt](https://…)` as soon as the
// file is opened, telling that server who read it and when. neutraliseRemoteImages turns each
// image whose address is remote (or a reference, whose address is elsewhere) into a plain link,
// "[image: alt](address)", which loads nothing until it is clicked. Fenced code blocks are left as
// they are (Markdown shows them as text). core/report/markdown_images.cpp.

#include <string>
#include <string_view>

namespace cl::report {

// The Markdown with its remote images turned into links; *count (when given) gets how many.
std::string neutraliseRemoteImages(std::string_view markdown, std::size_t *count = nullptr);

} // namespace cl::report
