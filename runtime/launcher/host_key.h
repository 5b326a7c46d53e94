#pragma once

#include "core/base/result.h"
#include "runtime/launcher/ssh_session.h"

#include <string>

namespace hetplan {

// The host-key step of SshSession::connect, after the key exchange and before authentication
// (nothing is sent to a host whose key is not trusted). Fills `*info` when given.
Status checkHostKey(ssh_session_struct *session, const std::string &destination,
                    const HostKeyTrust &trust, HostKeyInfo *info);

} // namespace hetplan
