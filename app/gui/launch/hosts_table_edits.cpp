#include "launch/hosts_table_edits.h"

#include <QAction>
#include <QTableWidget>
#include <QUndoCommand>
#include <QUndoStack>

#include <map>
#include <set>
#include <utility>

namespace hetplan::gui {

// One step: the cells as they were and as they became.
class HostsTableEdits::Command : public QUndoCommand
{
public:
    Command(HostsTableEdits *edits, std::vector<Cell> before, std::vector<Cell> after,
            const QString &what, bool alreadyApplied)
        : QUndoCommand(what)
        , m_edits(edits)
        , m_before(std::move(before))
        , m_after(std::move(after))
        , m_skipRedo(alreadyApplied)
    {}

    void undo() override { m_edits->apply(m_before); }
    void redo() override
    {
        // A typed edit is in the cell already when it is pushed.
        if (std::exchange(m_skipRedo, false))
            return;
        m_edits->apply(m_after);
    }

private:
    HostsTableEdits *m_edits; // Not owned: the stack and its commands are its children.
    std::vector<Cell> m_before;
    std::vector<Cell> m_after;
    bool m_skipRedo;
};

HostsTableEdits::HostsTableEdits(QTableWidget *table, int firstEditable)
    : QObject(table)
    , m_table(table)
    , m_firstEditable(firstEditable)
    , m_undo(new QUndoStack(this))
    , m_undoAction(m_undo->createUndoAction(table, tr("&Undo")))
    , m_redoAction(m_undo->createRedoAction(table, tr("&Redo")))
    , m_fillDown(new QAction(tr("Fill &Down"), table))
    , m_shadow(std::size_t(table->rowCount()), QStringList(table->columnCount(), QString()))
{
    m_undoAction->setObjectName(QStringLiteral("hostsUndo"));
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_redoAction->setObjectName(QStringLiteral("hostsRedo"));
    // Ctrl+Shift+Z everywhere, beside the platform's own (Ctrl+Y on some).
    QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
    if (const QKeySequence shiftZ(Qt::CTRL | Qt::SHIFT | Qt::Key_Z); !redoKeys.contains(shiftZ))
        redoKeys.prepend(shiftZ);
    m_redoAction->setShortcuts(redoKeys);
    m_fillDown->setObjectName(QStringLiteral("hostsFillDown"));
    m_fillDown->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    m_fillDown->setToolTip(tr("Copy the top selected cell of each column to the selected cells "
                              "below it (one cell: the cell above)"));
    auto *separator = new QAction(table);
    separator->setSeparator(true);
    for (QAction *action : {m_undoAction, m_redoAction, separator, m_fillDown}) {
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        table->addAction(action);
    }
    table->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(m_fillDown, &QAction::triggered, this, &HostsTableEdits::fillDown);
    connect(table, &QTableWidget::cellChanged, this, &HostsTableEdits::onItemChanged);
}

QString &HostsTableEdits::shadow(int row, int column)
{
    return m_shadow[std::size_t(row)][column];
}

void HostsTableEdits::apply(const std::vector<Cell> &cells)
{
    m_applying = true;
    for (const Cell &cell : cells) {
        QTableWidgetItem *item = m_table->item(cell.row, cell.column);
        if (!item) {
            item = new QTableWidgetItem;
            m_table->setItem(cell.row, cell.column, item);
        }
        item->setText(cell.text);
        shadow(cell.row, cell.column) = cell.text;
    }
    m_applying = false;
    Q_EMIT edited();
}

void HostsTableEdits::reset(const std::vector<Cell> &cells)
{
    apply(cells);
}

void HostsTableEdits::set(const std::vector<Cell> &cells, const QString &what)
{
    std::vector<Cell> before;
    std::vector<Cell> after;
    for (const Cell &cell : cells) {
        const QTableWidgetItem *item = m_table->item(cell.row, cell.column);
        if (item && item->text() == cell.text)
            continue;
        before.push_back({cell.row, cell.column, shadow(cell.row, cell.column)});
        after.push_back(cell);
    }
    if (!after.empty())
        m_undo->push(new Command(this, std::move(before), std::move(after), what, false));
}

void HostsTableEdits::onItemChanged(int row, int column)
{
    if (m_applying)
        return;
    const QTableWidgetItem *item = m_table->item(row, column);
    const QString text = item ? item->text() : QString();
    QString &was = shadow(row, column);
    if (text == was)
        return;
    const QString header = m_table->horizontalHeaderItem(column)
                               ? m_table->horizontalHeaderItem(column)->text()
                               : QString();
    m_undo->push(new Command(this, {{row, column, was}}, {{row, column, text}},
                             tr("Edit %1").arg(header), true));
    was = text;
    Q_EMIT edited();
}

void HostsTableEdits::fillDown()
{
    // The selected rows of each editable column; without a selection, the current cell.
    std::map<int, std::set<int>> rowsOfColumn;
    for (const QTableWidgetSelectionRange &range : m_table->selectedRanges())
        for (int column = std::max(range.leftColumn(), m_firstEditable);
             column <= range.rightColumn(); ++column)
            for (int row = range.topRow(); row <= range.bottomRow(); ++row)
                rowsOfColumn[column].insert(row);
    if (rowsOfColumn.empty() && m_table->currentColumn() >= m_firstEditable
        && m_table->currentRow() >= 0)
        rowsOfColumn[m_table->currentColumn()].insert(m_table->currentRow());

    const auto text = [this](int row, int column) {
        const QTableWidgetItem *item = m_table->item(row, column);
        return item ? item->text() : QString();
    };
    std::vector<Cell> cells;
    for (const auto &[column, rows] : rowsOfColumn) {
        if (rows.size() == 1) {
            const int row = *rows.begin();
            if (row > 0)
                cells.push_back({row, column, text(row - 1, column)});
            continue;
        }
        const QString top = text(*rows.begin(), column);
        for (auto row = std::next(rows.begin()); row != rows.end(); ++row)
            cells.push_back({*row, column, top});
    }
    set(cells, tr("Fill Down"));
}

} // namespace hetplan::gui
