#pragma once

#include "model/project.h"

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
    Status exportCluster(const QString &path) const;

    // --- Planning settings (not part of the undo history) ------------------------------------
    void setModelName(const std::string &name);
    void setCustomModel(const std::optional<ModelSpec> &model);
    void setWorkload(const Workload &workload);
    void setPlanner(PlannerKind planner);
    void setCostModel(CostModelKind costModel);
    void setLastPlan(const std::optional<Plan> &plan);

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
    void settingsChanged(); // model, workload, planner, cost model or last plan
    void projectReplaced(); // new, open, recover, import

private:
    void install(const Project &project, const QString &filePath, bool modified);
    void markSettingsModified();
    void updateModified();

    ClusterModel *m_model; // Owned (QObject child).
    Project m_settings;    // everything but the cluster, which lives in m_model
    QString m_filePath;
    bool m_modifiedOutsideUndo = false; // settings edits and imports since the last save
    bool m_lastModified = false;
    QTimer *m_autosaveTimer;
};

} // namespace hetplan::gui
