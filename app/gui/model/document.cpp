#include "model/document.h"

#include "core/catalog/catalog.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "model/cluster_model.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoStack>

namespace hetplan::gui {

namespace {

constexpr int kDefaultAutosaveS = 60;

std::string local(const QString &path)
{
    return QFile::encodeName(path).toStdString();
}

} // namespace

Document::Document(QObject *parent)
    : QObject(parent)
    , m_model(new ClusterModel(this))
    , m_autosaveTimer(new QTimer(this))
{
    connect(m_model->undoStack(), &QUndoStack::cleanChanged, this, &Document::updateModified);
    connect(m_autosaveTimer, &QTimer::timeout, this, [this] {
        if (isModified())
            (void)writeAutosave(); // best effort; a full disk must not interrupt editing
    });
    setAutosaveInterval(kDefaultAutosaveS);
}

Document::~Document() = default;

Project Document::project() const
{
    Project p = m_settings;
    p.cluster = m_model->cluster();
    return p;
}

QString Document::displayName() const
{
    if (!m_filePath.isEmpty())
        return QFileInfo(m_filePath).fileName();
    return QString::fromStdString(m_model->cluster().name);
}

bool Document::isModified() const
{
    return m_modifiedOutsideUndo || !m_model->undoStack()->isClean();
}

void Document::updateModified()
{
    const bool modified = isModified();
    if (modified == m_lastModified)
        return;
    m_lastModified = modified;
    Q_EMIT modifiedChanged(modified);
}

void Document::install(const Project &project, const QString &filePath, bool modified)
{
    const Status reset = m_model->reset(project.cluster);
    Q_ASSERT(reset.ok()); // callers pass clusters that passed checkCluster
    m_settings = project;
    m_settings.cluster = {};
    m_modifiedOutsideUndo = modified;
    if (filePath != m_filePath) {
        m_filePath = filePath;
        Q_EMIT filePathChanged(m_filePath);
    }
    Q_EMIT settingsChanged();
    Q_EMIT projectReplaced();
    updateModified();
}

void Document::newProject()
{
    Project p;
    p.cluster = ClusterModel::newCluster();
    install(p, {}, false);
}

Status Document::open(const QString &path)
{
    auto project = readProjectFile(local(path));
    if (!project)
        return project.error();
    install(*project, QFileInfo(path).absoluteFilePath(), false);
    return okStatus();
}

Status Document::openExample(const QString &name)
{
    auto cluster = loadCluster(name.toStdString());
    if (!cluster)
        return cluster.error();
    Project p;
    p.cluster = std::move(*cluster);
    // The bundled workload of the same name, where there is one (the case study's batch).
    if (const auto workload = findExample(name.toStdString(), ExampleKind::Workload))
        if (auto w = parseWorkload(workload->text, workload->path))
            p.workload = *w;
    install(p, {}, false);
    return okStatus();
}

Status Document::save(const QString &path)
{
    if (Status s = saveProjectFile(project(), local(path)); !s)
        return s;
    discardAutosave();
    m_modifiedOutsideUndo = false;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (absolute != m_filePath) {
        m_filePath = absolute;
        Q_EMIT filePathChanged(m_filePath);
    }
    m_model->undoStack()->setClean();
    updateModified();
    return okStatus();
}

Status Document::importCluster(const QString &path)
{
    auto read = readProjectFile(local(path));
    if (!read)
        return read.error();
    if (Status s = m_model->reset(read->cluster); !s)
        return s;
    m_settings.lastPlan.reset(); // planned for another cluster
    markSettingsModified();
    return okStatus();
}

Status Document::exportCluster(const QString &path) const
{
    return writeFileAtomic(local(path), writeCluster(m_model->cluster()));
}

void Document::markSettingsModified()
{
    m_modifiedOutsideUndo = true;
    Q_EMIT settingsChanged();
    updateModified();
}

void Document::setModelName(const std::string &name)
{
    if (name == m_settings.modelName && !m_settings.customModel)
        return;
    m_settings.modelName = name;
    m_settings.customModel.reset();
    markSettingsModified();
}

void Document::setCustomModel(const std::optional<ModelSpec> &model)
{
    if (model == m_settings.customModel)
        return;
    m_settings.customModel = model;
    markSettingsModified();
}

void Document::setWorkload(const Workload &workload)
{
    if (workload == m_settings.workload)
        return;
    m_settings.workload = workload;
    markSettingsModified();
}

void Document::setPlanner(PlannerKind planner)
{
    if (planner == m_settings.planner)
        return;
    m_settings.planner = planner;
    markSettingsModified();
}

void Document::setCostModel(CostModelKind costModel)
{
    if (costModel == m_settings.costModel)
        return;
    m_settings.costModel = costModel;
    markSettingsModified();
}

void Document::setLastPlan(const std::optional<Plan> &plan)
{
    m_settings.lastPlan = plan;
    markSettingsModified();
}

// ---- Autosave ----------------------------------------------------------------------------

QString Document::autosavePathFor(const QString &filePath)
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                           + QStringLiteral("/autosave");
    // One autosave per document: a hash of its path keeps names short and file-system safe.
    const QString key
        = filePath.isEmpty()
              ? QStringLiteral("untitled")
              : QString::fromLatin1(
                  QCryptographicHash::hash(QFileInfo(filePath).absoluteFilePath().toUtf8(),
                                           QCryptographicHash::Sha1)
                      .toHex()
                      .left(16));
    return folder + QLatin1Char('/') + key + QStringLiteral(".hetplan.json");
}

void Document::setAutosaveInterval(int seconds)
{
    if (seconds <= 0) {
        m_autosaveTimer->stop();
        return;
    }
    m_autosaveTimer->start(seconds * 1000);
}

Status Document::writeAutosave() const
{
    const QString path = autosavePath();
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return badInput(local(path) + ": cannot create the autosave folder");
    return saveProjectFile(project(), local(path));
}

std::optional<QString> Document::recoverableAutosave(const QString &filePath)
{
    const QFileInfo autosave(autosavePathFor(filePath));
    if (!autosave.exists())
        return std::nullopt;
    if (!filePath.isEmpty()) {
        const QFileInfo file(filePath);
        if (file.exists() && file.lastModified() >= autosave.lastModified())
            return std::nullopt;
    }
    return autosave.absoluteFilePath();
}

Status Document::recover(const QString &autosaveFile, const QString &filePath)
{
    auto project = readProjectFile(local(autosaveFile));
    if (!project)
        return project.error();
    install(*project, filePath.isEmpty() ? QString() : QFileInfo(filePath).absoluteFilePath(),
            true);
    return okStatus();
}

void Document::discardAutosave() const
{
    QFile::remove(autosavePath());
}

} // namespace hetplan::gui
