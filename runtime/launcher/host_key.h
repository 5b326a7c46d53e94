#pragma once

#include "core/base/result.h"
#include "runtime/launcher/ssh_session.h"

#include <string>

namespace hetplan {

// Before ssh_connect: reads the known-hosts files (an unreadable one fails here, before any
// connection), asks the host first for the key types recorded for it, as ssh(1) does, and keeps
// libssh from reading the files itself (it would wait forever on a FIFO).
Status prepareHostKeyCheck(ssh_session_struct *session, const std::string &destination,
                           const HostKeyTrust &trust);

// The host-key step of SshSession::connect, after the key exchange and before authentication
// (nothing is sent to a host whose key is not trusted). Fills `*info` when given.
Status checkHostKey(ssh_session_struct *session, const std::string &destination,
                    const HostKeyTrust &trust, HostKeyInfo *info);

} // namespace hetplan
