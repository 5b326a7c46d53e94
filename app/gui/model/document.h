#pragma once

#include "core/io/project_json.h"
#include "model/settings_commands.h"

#include <QObject>
#include <QString>

#include <optional>

class QTimer;

namespace hetplan::gui {

class ClusterModel;

// The open project: the cluster (in a ClusterModel, with undo) and what to plan on it, the
// file it came from, whether it has unsaved changes, and its autosave. Opening a bad file
// leaves everything as it was. Headless: the window and the tests use the same object.
class Document : public QObject
{
    Q_OBJECT

public:
    explicit Document(QObject *parent = nullptr);
    ~Document() override;

    ClusterModel *clusterModel() const { return m_model; }
    // The whole project as it would be saved now.
    Project project() const;
    QString filePath() const { return m_filePath; }
    // The file name or the cluster's name, for the title bar.
    QString displayName() const;
    bool isModified() const;

    // --- Open, save ---------------------------------------------------------------------------
    void newProject();
    Status open(const QString &path);        // a project or a cluster file
    Status openExample(const QString &name); // a bundled cluster, e.g. "case-study"
    Status save(const QString &path);        // becomes the document's file on success
    // Replaces only the cluster; like open, it clears the undo history.
    Status importCluster(const QString &path);
    // A new, unsaved document around `cluster` (e.g. one imported from measurements).
    Status newFromCluster(const Cluster &cluster);
    Status exportCluster(const QString &path) const;

    // --- Planning choices: each change is one step on the cluster's undo stack --------------
    void setModelName(const std::string &name);
    void setCustomModel(const std::optional<ModelSpec> &model);
    // `what` names the step in Edit ▸ Undo; consecutive changes with the same non-zero
    // `mergeKey` (one field being typed into) are one step.
    void setWorkload(const Workload &workload, const QString &what = {}, int mergeKey = 0);
    void setPlanner(PlannerKind planner);
    void setCostModel(CostModelKind costModel);

    // --- The last plan: a result, not an edit (not on the undo stack) -------------------------
    // Who asked for a plan: a plan the person asked for is unsaved work; the plan found
    // unasked at start is not.
    enum class PlanOrigin { Person, Unasked };
    // The plan shown for this project and the cluster it was made for; both are saved with it.
    void setLastPlan(const Plan &plan, const Cluster &madeFor, PlanOrigin origin);

    // --- Where each machine runs for Tools › Launch (saved with the project, not an edit) --------
    const HostsFile &hosts() const { return m_settings.hosts; }
    void setHosts(const HostsFile &hosts);

    // --- Autosave and crash recovery ----------------------------------------------------------
    // Where this document autosaves: one file per document path (or "untitled") under
    // QStandardPaths::AppDataLocation/autosave.
    static QString autosavePathFor(const QString &filePath);
    QString autosavePath() const { return autosavePathFor(m_filePath); }
    // Every `seconds` while modified; 0 turns autosave off.
    void setAutosaveInterval(int seconds);
    Status writeAutosave() const;
    // An autosave of `filePath` newer than the file itself (or of an untitled document).
    static std::optional<QString> recoverableAutosave(const QString &filePath);
    // Loads the autosave as the unsaved state of `filePath` (empty: untitled).
    Status recover(const QString &autosaveFile, const QString &filePath);
    void discardAutosave() const;

Q_SIGNALS:
    void modifiedChanged(bool modified);
    void filePathChanged(const QString &path);
    void settingsChanged(); // model, workload, planner or cost model
    void projectReplaced(); // new, open, recover, import

private:
    friend class SettingsCommand; // undo and redo go through applyChoices()
    PlanningChoices choices() const;
    void applyChoices(const PlanningChoices &choices);
    void changeChoices(const PlanningChoices &next, const QString &what, int mergeKey);
    void install(const Project &project, const QString &filePath, bool modified);
    void markSettingsModified();
    void updateModified();

    ClusterModel *m_model; // Owned (QObject child).
    Project m_settings;    // everything but the cluster, which lives in m_model
    QString m_filePath;
    bool m_modifiedOutsideUndo = false; // plans asked for and imports since the last save
    bool m_lastModified = false;
    QTimer *m_autosaveTimer;
};

} // namespace hetplan::gui
