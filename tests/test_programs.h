#pragma once

// The project's programs, found next to the running test: CMake puts every executable in one
// bin/ folder. Found at run time rather than compiled in, so that a test's compile command is
// the same in every build folder and ccache shares the test objects between the presets.

#include <QFileInfo>
#include <QString>

namespace hetplan::test {

inline QString projectProgram(const char *name)
{
    const QString self = QFileInfo(QStringLiteral("/proc/self/exe")).symLinkTarget();
    return QFileInfo(self).absolutePath() + QLatin1Char('/') + QLatin1String(name);
}

} // namespace hetplan::test
