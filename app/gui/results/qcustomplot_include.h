#pragma once

// qcustomplot.h is written with Qt's lower-case keywords (signals, foreach), which the
// project switches off (QT_NO_KEYWORDS); spell them out for that one header only.
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
