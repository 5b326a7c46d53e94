// ClusterModel without any scene: random edits undo and redo exactly; invalid edits change
// nothing and say why.
#include "core/io/loaders.h"
#include "model/cluster_model.h"
#include "tests/test_registry.h"

#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

#include <cmath>
#include <limits>
#include <random>

using namespace hetplan;
using namespace hetplan::gui;

namespace {

Cluster caseStudy()
{
    auto cluster = loadCluster("case-study");
    Q_ASSERT(cluster.ok());
    return *cluster;
}

template<typename T>
const T &pick(const std::vector<T> &items, std::mt19937 &rng)
{
    return items[std::uniform_int_distribution<std::size_t>(0, items.size() - 1)(rng)];
}

std::vector<ItemId> nodeIds(const ClusterModel &model)
{
    std::vector<ItemId> ids = model.machineIds();
    const std::vector<ItemId> switches = model.switchIds();
    ids.insert(ids.end(), switches.begin(), switches.end());
    return ids;
}

// One random edit; some are invalid on purpose (they must be refused without a trace).
void randomEdit(ClusterModel &model, std::mt19937 &rng)
{
    static const std::vector<std::string> gpus
        = {"A100-80G", "RTX4090-24G", "RTX3090-24G", "H100-80G", "NoSuchGPU"};
    const std::vector<ItemId> nodes = nodeIds(model);
    const std::vector<ItemId> machines = model.machineIds();
    const std::vector<ItemId> links = model.linkIds();
    std::uniform_real_distribution<double> coordinate(-500, 1500);
    switch (std::uniform_int_distribution<int>(0, 8)(rng)) {
    case 0: {
        Machine m;
        m.name = std::uniform_int_distribution<int>(0, 1)(rng) ? "M" : "A";
        m.gpu = pick(gpus, rng);
        m.count = std::uniform_int_distribution<int>(-1, 9)(rng);
        m.position = {coordinate(rng), coordinate(rng)};
        (void)model.addMachine(m);
        break;
    }
    case 1:
        (void)model.addSwitch(Switch{"sw", {coordinate(rng), coordinate(rng)}});
        break;
    case 2: {
        Link params;
        params.bandwidthGBps = std::uniform_real_distribution<double>(-1, 100)(rng);
        (void)model.addLink(pick(nodes, rng), pick(nodes, rng), params);
        break;
    }
    case 3: {
        const ItemId id = pick(machines, rng);
        Machine m = *model.machine(id);
        m.count = std::uniform_int_distribution<int>(0, 8)(rng);
        m.gpu = pick(gpus, rng);
        if (std::uniform_int_distribution<int>(0, 3)(rng) == 0)
            m.name = pick(std::vector<std::string>{"R", "A", "eth", "x:y", ""}, rng);
        (void)model.updateMachine(id, m);
        break;
    }
    case 4:
        if (!links.empty()) {
            Link params = *model.link(pick(links, rng));
            params.bandwidthGBps = std::uniform_real_distribution<double>(0, 50)(rng);
            params.kind = LinkKind::InfiniBand;
            (void)model.updateLink(pick(links, rng), params);
        }
        break;
    case 5:
        model.moveNodes({{pick(nodes, rng), {coordinate(rng), coordinate(rng)}}},
                        std::uniform_int_distribution<int>(0, 1)(rng) == 1);
        break;
    case 6: {
        std::vector<ItemId> doomed = {pick(nodes, rng)};
        if (!links.empty())
            doomed.push_back(pick(links, rng));
        model.removeItems(doomed);
        break;
    }
    case 7:
        (void)model.duplicate({pick(nodes, rng), pick(nodes, rng)}, {40, 40},
                              std::uniform_int_distribution<int>(1, 3)(rng));
        break;
    case 8:
        if (const Switch *s = model.networkSwitch(pick(nodes, rng)))
            (void)model.updateSwitch(pick(nodes, rng), Switch{s->name + "x", s->position});
        break;
    }
}

} // namespace

class TestClusterModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void randomEditsUndoAndRedoExactly_data();
    void randomEditsUndoAndRedoExactly();
    void invalidEditsAreRefused_data();
    void invalidEditsAreRefused();
    void startsEmpty();
    void deletingEverythingIsOneUndoStep();
    void renameFollowsIntoLinks();
    void dragIsOneUndoStep();
    void removalAnnouncesLinksBeforeNodes();
    void copiesKeepTheirLinks();
    void resetRefusesInvalidCluster();
};

void TestClusterModel::randomEditsUndoAndRedoExactly_data()
{
    QTest::addColumn<unsigned>("seed");
    QTest::newRow("seed 1") << 1u;
    QTest::newRow("seed 7") << 7u;
    QTest::newRow("seed 2024") << 2024u;
}

void TestClusterModel::randomEditsUndoAndRedoExactly()
{
    QFETCH(unsigned, seed);
    ClusterModel model;
    QVERIFY(model.reset(caseStudy()).ok());
    const Cluster original = model.cluster();
    const std::vector<ItemId> originalIds = nodeIds(model);

    std::mt19937 rng(seed);
    for (int i = 0; i < 200; ++i)
        randomEdit(model, rng);
    const Cluster edited = model.cluster();
    const std::vector<ItemId> editedIds = nodeIds(model);
    QVERIFY2(model.undoStack()->count() > 50, "most random edits should be valid");
    QVERIFY(!(edited == original));

    while (model.undoStack()->canUndo())
        model.undoStack()->undo();
    QVERIFY(model.cluster() == original);
    QCOMPARE(nodeIds(model), originalIds);

    while (model.undoStack()->canRedo())
        model.undoStack()->redo();
    QVERIFY(model.cluster() == edited);
    QCOMPARE(nodeIds(model), editedIds);
}

void TestClusterModel::invalidEditsAreRefused_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expected"); // a part of the message

    QTest::newRow("no GPUs") << "count"
                             << "0"
                             << "count";
    QTest::newRow("too many GPUs") << "count"
                                   << "5000"
                                   << "1..1024";
    QTest::newRow("unknown GPU") << "gpu"
                                 << "NoSuchGPU"
                                 << "unknown GPU type";
    QTest::newRow("colon in name") << "name"
                                   << "A:1"
                                   << "':'";
    QTest::newRow("empty name") << "name"
                                << ""
                                << "name";
    QTest::newRow("name taken") << "name"
                                << "B"
                                << "unique";
    QTest::newRow("zero intra bandwidth") << "intra"
                                          << "0"
                                          << "bandwidth_GBps";
    QTest::newRow("NaN intra bandwidth") << "intra"
                                         << "nan"
                                         << "bandwidth_GBps";
    QTest::newRow("zero link bandwidth") << "link"
                                         << "0"
                                         << "bandwidth_GBps";
    QTest::newRow("infinite link latency") << "latency"
                                           << "inf"
                                           << "latency_us";
}

void TestClusterModel::invalidEditsAreRefused()
{
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    ClusterModel model;
    QVERIFY(model.reset(caseStudy()).ok());
    const Cluster before = model.cluster();
    QSignalSpy refused(&model, &ClusterModel::editRefused);
    QSignalSpy changed(&model, &ClusterModel::clusterChanged);

    const ItemId a = model.nodeByName("A");
    Machine m = *model.machine(a);
    Link l = *model.link(model.linkIds().front());
    const double number = value.toDouble();
    Status status = okStatus();
    if (field == QLatin1String("count")) {
        m.count = value.toInt();
    } else if (field == QLatin1String("gpu")) {
        m.gpu = value.toStdString();
    } else if (field == QLatin1String("name")) {
        m.name = value.toStdString();
    } else if (field == QLatin1String("intra")) {
        m.intra.bandwidthGBps
            = value == QLatin1String("nan") ? std::numeric_limits<double>::quiet_NaN() : number;
    } else if (field == QLatin1String("link")) {
        l.bandwidthGBps = number;
        status = model.updateLink(model.linkIds().front(), l);
    } else {
        l.latencyUs = std::numeric_limits<double>::infinity();
        status = model.updateLink(model.linkIds().front(), l);
    }
    if (field != QLatin1String("link") && field != QLatin1String("latency"))
        status = model.updateMachine(a, m);

    QVERIFY(!status.ok());
    QVERIFY2(QString::fromStdString(status.error().message).contains(expected),
             status.error().message.c_str());
    QVERIFY(model.cluster() == before);
    QCOMPARE(model.undoStack()->count(), 0);
    QCOMPARE(refused.count(), 1);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(model.lastError(), QString::fromStdString(status.error().message));
}

void TestClusterModel::startsEmpty()
{
    // File ▸ New: an empty canvas the first drop fills.
    ClusterModel model;
    QCOMPARE(model.cluster().name, std::string("untitled"));
    QVERIFY(model.cluster().machines.empty());
    QVERIFY(model.machineIds().empty() && model.switchIds().empty());
    Machine m;
    m.name = "A";
    m.gpu = "A100-80G";
    m.count = 8;
    QVERIFY(model.addMachine(m).ok());
    QCOMPARE(model.cluster().machines.size(), std::size_t(1));
}

void TestClusterModel::deletingEverythingIsOneUndoStep()
{
    ClusterModel model;
    QVERIFY(model.reset(caseStudy()).ok());
    const Cluster before = model.cluster();
    QSignalSpy refused(&model, &ClusterModel::editRefused);
    std::vector<ItemId> everything = model.machineIds();
    for (ItemId id : model.switchIds())
        everything.push_back(id);
    model.removeItems(everything);
    QCOMPARE(refused.count(), 0);
    QVERIFY(model.lastError().isEmpty());
    QVERIFY(model.cluster().machines.empty());
    QVERIFY(model.cluster().switches.empty());
    QVERIFY(model.cluster().links.empty());
    QCOMPARE(model.undoStack()->count(), 1);

    model.undoStack()->undo();
    QVERIFY(model.cluster() == before);
    model.undoStack()->redo();
    QVERIFY(model.cluster().machines.empty());
}

void TestClusterModel::renameFollowsIntoLinks()
{
    ClusterModel model;
    QVERIFY(model.reset(caseStudy()).ok());
    const ItemId a = model.nodeByName("A");
    Machine m = *model.machine(a);
    m.name = "A800-box";
    QVERIFY(model.updateMachine(a, m).ok());
    QCOMPARE(model.nodeByName("A800-box"), a);
    QCOMPARE(model.linksOf(a).size(), std::size_t(1));
    QCOMPARE(model.link(model.linksOf(a).front())->a, std::string("A800-box"));
    model.undoStack()->undo();
    QVERIFY(model.cluster() == caseStudy());
}

void TestClusterModel::dragIsOneUndoStep()
{
    ClusterModel model;
    QVERIFY(model.reset(caseStudy()).ok());
    const ItemId b = model.nodeByName("B");
    for (int step = 1; step <= 5; ++step)
        model.moveNodes({{b, {300.0 + step, 60.0 + step}}}, true);
    QCOMPARE(model.undoStack()->count(), 1);
    QCOMPARE(model.machine(b)->position, (CanvasPosition{305, 65}));
    model.moveNodes({{b, {0, 0}}}, false); // a separate move
    QCOMPARE(model.undoStack()->count(), 2);
    model.undoStack()->undo();
    model.undoStack()->undo();
    QVERIFY(model.cluster() == caseStudy());

    // Past the canvas limit, a node stops at the edge.
    model.moveNodes({{b, {1e12, -1e12}}});
    QCOMPARE(model.machine(b)->position, (CanvasPosition{1e7, -1e7}));
}

void TestClusterModel::removalAnnouncesLinksBeforeNodes()
{
    ClusterModel model;
    QVERIFY(model.reset(caseStudy()).ok());
    const ItemId eth = model.nodeByName("eth");
    const std::vector<ItemId> links = model.linksOf(eth);
    QSignalSpy removed(&model, &ClusterModel::itemRemoved);
    model.removeItems({eth});
    QCOMPARE(removed.count(), 4);
    QCOMPARE(removed.last().at(0).value<ItemId>(), eth);
    model.undoStack()->undo();
    QCOMPARE(model.linksOf(eth), links); // the same ids come back
}

void TestClusterModel::copiesKeepTheirLinks()
{
    ClusterModel model;
    QVERIFY(model.reset(caseStudy()).ok());
    const ItemId a = model.nodeByName("A");
    const ItemId eth = model.nodeByName("eth");
    const std::vector<ItemId> added = model.duplicate({a, eth}, {30, 30}, 3);
    QCOMPARE(added.size(), std::size_t(9)); // per copy: machine, switch, the link between them
    QCOMPARE(model.cluster().machines.size(), std::size_t(6));
    QVERIFY(model.nodeByName("A-2") != 0);
    QVERIFY(model.nodeByName("eth-4") != 0);
    QCOMPARE(model.machine(model.nodeByName("A-4"))->position, (CanvasPosition{170, 150}));
    QCOMPARE(model.undoStack()->count(), 1);

    // Past the cluster's limits: refused, nothing added.
    QVERIFY(model.duplicate({a}, {1, 1}, 100000).empty());
    QCOMPARE(model.cluster().machines.size(), std::size_t(6));
    QVERIFY(!model.lastError().isEmpty());
}

void TestClusterModel::resetRefusesInvalidCluster()
{
    ClusterModel model;
    QVERIFY(model.reset(caseStudy()).ok());
    Cluster bad = caseStudy();
    bad.links.push_back(Link{"A", "nowhere", LinkKind::Ethernet, 1, 1});
    const Status status = model.reset(bad);
    QVERIFY(!status.ok());
    QVERIFY2(status.error().message.find("nowhere") != std::string::npos,
             status.error().message.c_str());
    QVERIFY(model.cluster() == caseStudy());
}

HETPLAN_TEST_MAIN(TestClusterModel)
#include "tst_cluster_model.moc"
