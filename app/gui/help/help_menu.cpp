#include "help/help_menu.h"

#include "base/version.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QMessageBox>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace hetplan::gui {

namespace {

const QString kReadme = QStringLiteral(":/help/README.md");
const QString kReadmeLink = QStringLiteral("hetplan:readme");
const QString kQuickStartHeading = QStringLiteral("## The desktop app");

QString readmeText()
{
    QFile file(kReadme);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

// Pictures point into the source tree, which an installed app does not have.
QString withoutPictures(const QString &markdown)
{
    static const QRegularExpression picture(QStringLiteral("^!\\[[^\\]]*\\]\\([^)]*\\)\\s*$"),
                                            QRegularExpression::MultilineOption);
    QString text = markdown;
    return text.remove(picture);
}

// "Save &As…" reads "Save As" in a table.
QString plainActionText(const QAction *action)
{
    QString text = action->text();
    text.remove(QRegularExpression(QStringLiteral("\\(&\\w\\)"))); // CJK mnemonics "文件(&F)"
    text.remove(QLatin1Char('&'));
    text.remove(QStringLiteral("…"));
    return text.trimmed();
}

} // namespace

HelpMenu::HelpMenu(QMainWindow *window)
    : QMenu(tr("&Help"), window)
    , m_window(window)
{
    setObjectName(QStringLiteral("helpMenu"));
    m_quickStart = addAction(tr("&Quick Start"), this, &HelpMenu::showQuickStart);
    m_quickStart->setShortcut(QKeySequence::HelpContents);
    m_shortcuts = addAction(tr("&Keyboard Shortcuts"), this, &HelpMenu::showShortcuts);
    addSeparator();
    m_about = addAction(tr("&About HetPlan"), this, &HelpMenu::showAbout);
    m_about->setMenuRole(QAction::AboutRole);
}

QString HelpMenu::aboutText()
{
    return tr("<h3>HetPlan %1</h3>"
              "<p>Plans parallel training and serving of large language models on "
              "heterogeneous GPU fleets.</p>"
              "<p>Built with Qt %2, running on Qt %3.</p>"
              "<p>Documentation: <a href=\"%4\">the HetPlan README</a> (also in the source "
              "tree's README.md and docs/ folder).</p>")
        .arg(QString::fromUtf8(hetplan::kVersion.data(), qsizetype(hetplan::kVersion.size())),
             QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()), kReadmeLink);
}

QString HelpMenu::quickStartMarkdown()
{
    const QString readme = readmeText();
    const qsizetype begin = readme.indexOf(kQuickStartHeading);
    if (begin < 0)
        return withoutPictures(readme);
    const qsizetype end = readme.indexOf(QStringLiteral("\n## "), begin + 1);
    return withoutPictures(readme.mid(begin, end < 0 ? -1 : end - begin));
}

QList<ShortcutRow> HelpMenu::shortcutRows(const QWidget *window)
{
    QList<ShortcutRow> rows;
    for (const QAction *action : window->findChildren<QAction *>()) {
        const QList<QKeySequence> keys = action->shortcuts();
        if (keys.isEmpty() || action->text().isEmpty())
            continue;
        QStringList texts;
        for (const QKeySequence &key : keys)
            texts << key.toString(QKeySequence::NativeText);
        const ShortcutRow row{plainActionText(action), texts.join(QStringLiteral(", "))};
        // An action shared by a menu and a toolbar is one row.
        if (std::none_of(rows.begin(), rows.end(), [&](const ShortcutRow &r) {
                return r.action == row.action && r.keys == row.keys;
            }))
            rows << row;
    }
    std::sort(rows.begin(), rows.end(), [](const ShortcutRow &a, const ShortcutRow &b) {
        return QString::localeAwareCompare(a.action, b.action) < 0;
    });
    return rows;
}

void HelpMenu::showAbout()
{
    QMessageBox box(m_window);
    box.setWindowTitle(tr("About HetPlan"));
    box.setIconPixmap(m_window->windowIcon().pixmap(64, 64));
    box.setTextFormat(Qt::RichText);
    box.setText(aboutText());
    // The README link opens inside the app: there is no web site to send a person to.
    const auto labels = box.findChildren<QLabel *>();
    for (QLabel *label : labels) {
        label->setOpenExternalLinks(false);
        connect(label, &QLabel::linkActivated, this, [this, &box](const QString &link) {
            if (link == kReadmeLink) {
                box.accept();
                showReadme();
            }
        });
    }
    box.exec();
}

void HelpMenu::showQuickStart()
{
    showMarkdown(tr("Quick Start"), quickStartMarkdown());
}

void HelpMenu::showReadme()
{
    showMarkdown(tr("HetPlan README"), withoutPictures(readmeText()));
}

void HelpMenu::showMarkdown(const QString &title, const QString &markdown)
{
    auto *text = new QTextBrowser;
    text->setOpenExternalLinks(true);
    text->setMarkdown(markdown);
    showInDialog(title, text, {720, 560});
}

void HelpMenu::showShortcuts()
{
    const QList<ShortcutRow> rows = shortcutRows(m_window);
    auto *table = new QTableWidget(int(rows.size()), 2);
    table->setHorizontalHeaderLabels({tr("Action"), tr("Keys")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    for (int i = 0; i < rows.size(); ++i) {
        table->setItem(i, 0, new QTableWidgetItem(rows[i].action));
        table->setItem(i, 1, new QTableWidgetItem(rows[i].keys));
    }
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    showInDialog(tr("Keyboard Shortcuts"), table, {480, 560});
}

void HelpMenu::showInDialog(const QString &title, QWidget *content, QSize size)
{
    QDialog dialog(m_window);
    dialog.setWindowTitle(title);
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(content);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog.resize(size);
    dialog.exec();
}

} // namespace hetplan::gui
