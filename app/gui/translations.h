#pragma once

#include <QString>
#include <QStringList>

#include <utility>

namespace hetplan::gui {

// The language setting: "" follows the system, "en" or "zh_CN" pick one.
QString languageSetting();
void setLanguageSetting(const QString &language);
// The languages the app ships, as (setting, native name) for the settings dialog.
QList<std::pair<QString, QString>> availableLanguages();

// Installs every embedded translation (:/i18n/*_<locale>.qm, one per part of the app) and Qt's
// own for `language` ("" = the system's). Returns the files loaded; English loads none.
QStringList installTranslations(const QString &language);

} // namespace hetplan::gui
