// SPDX-License-Identifier: MIT
#pragma once

// simdjson's DOM turned into nlohmann's, for code that parses with simdjson and hands on a json, and
// small helpers on that DOM.

#include <nlohmann/json.hpp>
#include <simdjson.h>

namespace cl::json {

// A later duplicate key replaces an earlier one (as nlohmann's parser does); non-negative integers
// are stored unsigned (as nlohmann stores them).
nlohmann::json fromSimdjson(const simdjson::dom::element &e);

// The element as an object; only where is_object() was checked.
inline simdjson::dom::object objectOf(const simdjson::dom::element &e)
{
    return e.get_object().value_unsafe();
}

} // namespace cl::json
