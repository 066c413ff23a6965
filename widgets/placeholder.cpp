// SPDX-License-Identifier: MIT
// Placeholder so the library has a source until the widgets land.
namespace cl::gui { int widgetsPlaceholder() { return 0; } }
