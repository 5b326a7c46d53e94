#include "translations.h"

#include <QCoreApplication>
#include <QDir>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

namespace hetplan::gui {

namespace {

const QString kLanguageKey = QStringLiteral("ui/language");

// The shipped translation closest to a locale: zh_TW, zh_HK and zh_CN readers all get zh_CN.
QString shippedLocale(const QString &language)
{
    const QString name = language.isEmpty() ? QLocale::system().name() : language;
    if (name.startsWith(QLatin1String("zh")))
        return QStringLiteral("zh_CN");
    return {};
}

} // namespace

QString languageSetting()
{
    return QSettings().value(kLanguageKey).toString();
}

void setLanguageSetting(const QString &language)
{
    QSettings().setValue(kLanguageKey, language);
}

QList<std::pair<QString, QString>> availableLanguages()
{
    return {{QString(), QCoreApplication::translate("Languages", "System")},
            {QStringLiteral("en"), QStringLiteral("English")},
            {QStringLiteral("zh_CN"), QStringLiteral("简体中文")}};
}

QStringList installTranslations(const QString &language)
{
    QStringList loaded;
    const QString locale = shippedLocale(language);
    if (locale.isEmpty())
        return loaded;
    const QDir embedded(QStringLiteral(":/i18n"));
    const QStringList files = embedded.entryList(
        {QStringLiteral("*_") + locale + QStringLiteral(".qm")}, QDir::Files, QDir::Name);
    const auto install = [&](const QString &file, const QString &directory) {
        auto *translator = new QTranslator(QCoreApplication::instance());
        if (translator->load(file, directory) && QCoreApplication::installTranslator(translator))
            loaded << file;
        else
            delete translator;
    };
    for (const QString &file : files)
        install(file, embedded.path());
    // Qt's own strings (standard buttons, file dialogs), where the system has them.
    install(QStringLiteral("qtbase_") + locale, QLibraryInfo::path(QLibraryInfo::TranslationsPath));
    return loaded;
}

} // namespace hetplan::gui
