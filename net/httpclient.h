// SPDX-License-Identifier: MIT
#pragma once

// One HTTP POST to a model provider, blocking the calling thread (any thread: each call has its own
// QNetworkAccessManager and event loop; a QCoreApplication must exist). Streams the body of a
// successful answer to onData as it arrives; retries 429 and 5xx answers and dropped connections
// before the first byte, waiting what Retry-After says or backing off exponentially.
// Bounded whatever the server does (docs/design/summaries.md, "Hostile servers"):
//   - time: the whole call, retries and waits included, ends by timeoutMs (a server dripping a byte
//     a second, or a Retry-After of days, cannot stretch it); the cancel flag stops it within 50 ms;
//   - memory: an answer's body (after decompression) is cut at maxBodyBytes, an error's at
//     maxErrorBytes, and the call fails;
//   - credentials: redirects are followed only within the same origin (scheme, host and port) and at
//     most 5 times; a redirect elsewhere is refused, so the key headers and the prompt never leave;
//   - messages: error texts are valid UTF-8 with the key and URL credentials masked.

#include "core/llm/provider.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace cl::net {

struct PostOptions {
    int timeoutMs = 300000; // the whole call: every attempt and every wait between them
    int retries = 3;
    int backoffMs = 1000;                             // first wait without Retry-After, doubled each time
    int maxWaitMs = 60000;                            // longest wait between attempts (Retry-After included), within timeoutMs
    std::size_t maxBodyBytes = std::size_t(32) << 20; // a 2xx answer (streamed or not), decompressed
    std::size_t maxErrorBytes = std::size_t(1) << 20; // an error answer's body
    int maxRedirects = 5;                             // same-origin redirects followed
    const std::atomic_bool *cancel = nullptr;
    std::function<void(std::string_view)> onData;                                 // body bytes of a 2xx answer
    std::function<void(int attempt, int waitMs, const std::string &why)> onRetry; // before each wait
};

struct PostResult {
    int status = 0;    // HTTP status of the last attempt (0: no answer)
    std::string body;  // the whole body when onData is not set, or an error answer's body (raw bytes)
    std::string error; // "" on a 2xx answer; else what went wrong (safe to show: UTF-8, no secrets)
    bool cancelled = false;
    bool timedOut = false;
    bool tooLarge = false; // a body went past its cap
    bool redirectRefused = false;
    int attempts = 0;
};

PostResult post(const llm::HttpRequest &request, const PostOptions &options);

// Milliseconds a Retry-After value asks for (seconds or an HTTP date); -1 when it says nothing usable.
int retryAfterMs(const std::string &value);

// Whether two absolute URLs have the same scheme, host and port (default ports filled in).
bool sameOrigin(const std::string &a, const std::string &b);

} // namespace cl::net
