#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <vector>

class QAction;
class QTableWidget;
class QUndoStack;

namespace hetplan::gui {

// The editing of the Hosts table (docs/app-launch.md, "Hosts"): every change of a cell is a
// step of an undo stack local to the dialog (Ctrl+Z, Ctrl+Shift+Z), whether typed, filled down
// or imported; Fill Down (Ctrl+D, also in the table's context menu) copies the top cell of each
// selected column to the selected cells below it, or the cell above into a single selected
// cell, as spreadsheets do. Columns before `firstEditable` are never written.
class HostsTableEdits : public QObject
{
    Q_OBJECT

public:
    HostsTableEdits(QTableWidget *table, int firstEditable);

    // One cell's new text.
    struct Cell
    {
        int row = 0;
        int column = 0;
        QString text;
    };
    // Sets cells as one undoable step named `what`; cells that already hold their text are
    // skipped, and nothing is pushed when none changes.
    void set(const std::vector<Cell> &cells, const QString &what);
    // Sets cells without an undo step (the rows the dialog opens with).
    void reset(const std::vector<Cell> &cells);
    void fillDown();

    QUndoStack *undoStack() const { return m_undo; }
    QAction *undoAction() const { return m_undoAction; }
    QAction *redoAction() const { return m_redoAction; }
    QAction *fillDownAction() const { return m_fillDown; }

Q_SIGNALS:
    // A cell changed: typed, filled down, imported, undone or redone.
    void edited();

private:
    class Command;
    void apply(const std::vector<Cell> &cells);
    void onItemChanged(int row, int column);
    QString &shadow(int row, int column);

    QTableWidget *m_table;
    int m_firstEditable;
    QUndoStack *m_undo;
    QAction *m_undoAction;
    QAction *m_redoAction;
    QAction *m_fillDown;
    // Each cell's text as the last step left it, for the "before" of a typed edit.
    std::vector<QStringList> m_shadow;
    bool m_applying = false;
};

} // namespace hetplan::gui
