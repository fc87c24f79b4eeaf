// ④ What the classifier asks of SSH's dissector (ssh.cpp) when it reports
// a flow's risks.
#pragma once

#include "dpi/dpi.h"

namespace fg {

// nDPI's "SSH Probing" (ndpi_main.c, ndpi_check_probing_attempt) for a
// flow SSH's dissector named: both directions sent a PSH flag, payload came
// from one nDPI direction only while SSH read the flow, and no KEXINIT of
// nDPI's direction 1 (the server's HASSH) was read.
// `unanswered`: ssh_unanswered's answer on the flow's FlowInfo, which the
// classifier keeps when it settles the flow (the dissector's bytes are
// final once SSH is done reading).
bool ssh_unanswered(const FlowInfo& fi);
bool ssh_probing_attempt(const Flow& f, bool unanswered);

}  // namespace fg
