#include "model/settings_commands.h"

#include "model/document.h"

namespace hetplan::gui {

SettingsCommand::SettingsCommand(Document *document, PlanningChoices before, PlanningChoices after,
                                 const QString &text, int mergeKey)
    : QUndoCommand(text)
    , m_document(document)
    , m_before(std::move(before))
    , m_after(std::move(after))
    , m_mergeKey(mergeKey)
{}

void SettingsCommand::undo()
{
    m_document->applyChoices(m_before);
}

void SettingsCommand::redo()
{
    m_document->applyChoices(m_after);
}

int SettingsCommand::id() const
{
    return 2; // any constant other than MoveCommand's: settings merge only with settings
}

bool SettingsCommand::mergeWith(const QUndoCommand *other)
{
    const auto *next = static_cast<const SettingsCommand *>(other); // same id()
    if (m_mergeKey == 0 || next->m_mergeKey != m_mergeKey)
        return false;
    m_after = next->m_after;
    setObsolete(m_after == m_before);
    return true;
}

} // namespace hetplan::gui
