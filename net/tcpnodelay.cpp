// SPDX-License-Identifier: MIT
#include "net/tcpnodelay.h"

#if defined(__linux__)
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstdlib>
#endif

namespace cl::net {

void sendHeldTcpData()
{
#if defined(__linux__)
    DIR *fds = ::opendir("/proc/self/fd");
    if (!fds)
        return;
    while (const dirent *entry = ::readdir(fds)) {
        char *end = nullptr;
        const long fd = std::strtol(entry->d_name, &end, 10);
        if (end == entry->d_name || *end != '\0' || fd == ::dirfd(fds))
            continue;
        int type = 0;
        sockaddr_storage address{};
        socklen_t typeSize = sizeof type, addressSize = sizeof address;
        if (::getsockopt(int(fd), SOL_SOCKET, SO_TYPE, &type, &typeSize) != 0 || type != SOCK_STREAM
            || ::getsockname(int(fd), reinterpret_cast<sockaddr *>(&address), &addressSize) != 0
            || (address.ss_family != AF_INET && address.ss_family != AF_INET6))
            continue; // not a socket, or not TCP
        const int on = 1;
        ::setsockopt(int(fd), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
    ::closedir(fds);
#endif
}

} // namespace cl::net
