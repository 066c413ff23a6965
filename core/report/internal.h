// SPDX-License-Identifier: MIT
#pragma once

// The sections of the HTML report, shared by the files that write them (core/report only).
// Figures carry data-key attributes (and rows data-strategy / data-message), so that tests and
// scripts can read a number back without parsing the layout.

#include "core/report/reportdata.h"

#include <string>

namespace cl::report::html {

// <div class="card" data-key="key"><div class="v">value</div><div class="k">label</div></div>;
// value and label are escaped.
std::string card(const std::string &key, const std::string &value, const std::string &label);
// <tr data-key="key"><th>label</th><td class="n">value</td></tr> (escaped).
std::string keyRow(const std::string &key, const std::string &label, const std::string &value);

std::string compactionsSection(const ReportData &d);
std::string compareSection(const ReportData &d);
std::string previewSection(const Transcript &t, const ReportData &d, std::size_t maxRows);

} // namespace cl::report::html
