#include "model/document.h"

#include "canvas/auto_layout.h"
#include "core/catalog/catalog.h"
#include "core/io/cluster_check.h"
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
    if (p.lastPlanCluster && samePlanningCluster(*p.lastPlanCluster, p.cluster))
        p.lastPlanCluster.reset();
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
    const Status reset = m_model->reset(withLayout(project.cluster));
    Q_ASSERT(reset.ok()); // callers pass clusters that passed checkCluster
    m_settings = project;
    m_settings.cluster = {};
    if (project.lastPlan)
        m_settings.lastPlanCluster = project.planCluster();
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

Status Document::newFromCluster(const Cluster &cluster)
{
    if (Status s = checkCluster(cluster, cluster.name); !s)
        return s;
    Project p;
    p.cluster = cluster;
    install(p, {}, true);
    return okStatus();
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
    if (std::optional<std::string> model = exampleModel(name.toStdString()))
        p.modelName = std::move(*model);
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
    if (Status s = m_model->reset(withLayout(read->cluster)); !s)
        return s;
    m_settings.lastPlan.reset(); // planned for another cluster
    m_settings.lastPlanCluster.reset();
    markSettingsModified();
    return okStatus();
}

Status Document::exportCluster(const QString &path) const
{
    return writeFileAtomic(local(path), writeCluster(m_model->cluster()));
}

void Document::setHosts(const HostsFile &hosts)
{
    if (hosts.hosts == m_settings.hosts.hosts)
        return;
    m_settings.hosts = hosts;
    markSettingsModified();
}

void Document::markSettingsModified()
{
    m_modifiedOutsideUndo = true;
    Q_EMIT settingsChanged();
    updateModified();
}

PlanningChoices Document::choices() const
{
    return {m_settings.modelName, m_settings.customModel, m_settings.workload, m_settings.planner,
            m_settings.costModel};
}

void Document::applyChoices(const PlanningChoices &choices)
{
    m_settings.modelName = choices.modelName;
    m_settings.customModel = choices.customModel;
    m_settings.workload = choices.workload;
    m_settings.planner = choices.planner;
    m_settings.costModel = choices.costModel;
    Q_EMIT settingsChanged();
}

void Document::changeChoices(const PlanningChoices &next, const QString &what, int mergeKey)
{
    if (next == choices())
        return;
    // push() applies it (redo) and updates the clean state, which updates isModified().
    m_model->undoStack()->push(new SettingsCommand(this, choices(), next, what, mergeKey));
}

void Document::setModelName(const std::string &name)
{
    PlanningChoices next = choices();
    next.modelName = name;
    next.customModel.reset();
    changeChoices(next, tr("Choose model %1").arg(QString::fromStdString(name)), 0);
}

void Document::setCustomModel(const std::optional<ModelSpec> &model)
{
    PlanningChoices next = choices();
    next.customModel = model;
    changeChoices(next,
                  model ? tr("Choose model %1").arg(QString::fromStdString(model->name))
                        : tr("Choose model %1").arg(QString::fromStdString(next.modelName)),
                  0);
}

void Document::setWorkload(const Workload &workload, const QString &what, int mergeKey)
{
    PlanningChoices next = choices();
    next.workload = workload;
    changeChoices(next, what.isEmpty() ? tr("Change workload") : what, mergeKey);
}

void Document::setPlanner(PlannerKind planner)
{
    PlanningChoices next = choices();
    next.planner = planner;
    changeChoices(next, tr("Choose planner %1").arg(QString::fromUtf8(plannerName(planner))), 0);
}

void Document::setCostModel(CostModelKind costModel)
{
    PlanningChoices next = choices();
    next.costModel = costModel;
    changeChoices(next, tr("Choose cost model %1").arg(QString::fromUtf8(costModelName(costModel))),
                  0);
}

void Document::setLastPlan(const Plan &plan, const Cluster &madeFor, PlanOrigin origin)
{
    const auto &last = m_settings.lastPlan;
    if (last && last->sameLayout(plan) && last->workload == plan.workload
        && last->model == plan.model && last->costModel == plan.costModel
        && samePlanningCluster(m_settings.planCluster(), madeFor))
        return;
    m_settings.lastPlan = plan;
    m_settings.lastPlanCluster = madeFor;
    if (origin == PlanOrigin::Person)
        m_modifiedOutsideUndo = true;
    updateModified();
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
