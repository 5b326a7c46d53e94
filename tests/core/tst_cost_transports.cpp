// The `hetplan` model's transport and ring-scale terms (docs/cost-models.md, "Transports and
// ring scale"): per-transport efficiency and per-hop latency, bandwidth lost as DP rings span
// more machines, the cluster file's overrides, and the paper models left as the papers print.
#include "core/cost/cost_model.h"
#include "core/io/formats.h"
#include "core/model/transport_figures.h"
#include "cost_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <string>

using namespace hetplan;
using namespace hetplan::testing;

namespace {

// `machines` boxes of 2 Fast GPUs, each joined to one switch by a 25 GB/s link of `kind`.
Cluster fabric(int machines, LinkKind kind)
{
    Cluster c;
    c.name = "fabric";
    c.switches = {{"sw", {}}};
    for (int m = 0; m < machines; ++m) {
        const std::string name = "M" + std::to_string(m);
        c.machines.push_back(machine(name.c_str(), "Fast", 2, 100, 1));
        c.machines.back().nic = kind == LinkKind::Roce         ? NicKind::Roce
                                : kind == LinkKind::InfiniBand ? NicKind::InfiniBand
                                                               : NicKind::Ethernet;
        c.links.push_back({name, "sw", kind, 25, 1});
    }
    return c;
}

// One pipeline per machine, each stage its machine's two GPUs at tp 2: pure data parallelism
// whose gradient rings span every machine.
Plan dataParallel(int machines)
{
    Plan plan;
    for (int m = 0; m < machines; ++m)
        plan.pipelines.push_back(pipeline(1, 1, {stage({2 * m, 2 * m + 1}, 2, 1, 0, 8)}));
    return plan;
}

double dpCommS(const Cluster &cluster, const CostModel &model)
{
    const Problem problem = makeProblem(cluster, smallModel(), trainWorkload(8, 512));
    return model.evaluate(problem, dataParallel(int(cluster.machines.size()))).breakdown.dpCommS;
}

TransportFigures lossless(LinkKind kind)
{
    return {kind, 1.0, 0.0, 1.0, 0.0, 0.0, "test: the nominal figures"};
}

} // namespace

class TestCostTransports : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roceIsSlowerThanInfiniBandAtEqualBandwidth()
    {
        const CostModel hetplan(CostModelKind::HetPlan);
        const double infiniBandS = dpCommS(fabric(4, LinkKind::InfiniBand), hetplan);
        const double roceS = dpCommS(fabric(4, LinkKind::Roce), hetplan);
        qInfo("4 machines, 25 GB/s: DP sync %.4f s over InfiniBand, %.4f s over RoCE", infiniBandS,
              roceS);
        QVERIFY(roceS > infiniBandS * 1.2);
        // The paper's model sees the same nominal bandwidth and charges both alike.
        const auto paper = makeCostModel(CostModelKind::HexiScalePaper);
        QCOMPARE(dpCommS(fabric(4, LinkKind::Roce), *paper),
                 dpCommS(fabric(4, LinkKind::InfiniBand), *paper));
    }

    void everyDefaultCitesItsSource()
    {
        QCOMPARE(defaultTransports().size(), std::size(kLinkKindNames));
        for (const TransportFigures &t : defaultTransports()) {
            QVERIFY(t.efficiency > 0 && t.efficiency <= 1);
            QVERIFY2(t.source.size() > 40, t.source.c_str());
        }
    }

    void ringsOverMoreMachinesLoseBandwidth()
    {
        // Against the same rings at lossless figures, a ring over 8 machines keeps
        // (1 − loss)^(log2 8 − 1) of the efficiency-scaled bandwidth; one over 2 loses none.
        const CostModel hetplan(CostModelKind::HetPlan);
        const TransportFigures &roce = transportFigures(Cluster{}, LinkKind::Roce);
        QVERIFY(roce.lossPerDoubling > 0);
        for (const int machines : {2, 8}) {
            Cluster noLoss = fabric(machines, LinkKind::Roce);
            noLoss.transports
                = {{LinkKind::Roce, roce.efficiency, roce.latencyUs, 1.0, 0.0, 0.0, ""}};
            const double withLossS = dpCommS(fabric(machines, LinkKind::Roce), hetplan);
            const double withoutS = dpCommS(noLoss, hetplan);
            if (machines == 2)
                QCOMPARE(withLossS, withoutS);
            else
                QVERIFY2(withLossS > withoutS * (1 / std::pow(1 - roce.lossPerDoubling, 2)) * 0.9,
                         (std::to_string(withLossS) + " vs " + std::to_string(withoutS)).c_str());
        }
    }

    void clusterEntriesReplaceTheDefaults()
    {
        // With lossless figures the sync is the nominal ring formula again: each of the two
        // tp shards' chunks crosses every machine's 25 GB/s link once per direction.
        Cluster nominal = fabric(2, LinkKind::InfiniBand);
        nominal.transports = {lossless(LinkKind::InfiniBand), lossless(LinkKind::Pcie)};
        const Problem problem = makeProblem(nominal, smallModel(), trainWorkload(8, 512));
        QCOMPARE(problem.topology.effectiveBandwidthBytesPerS(0, 2), 25e9);
        QCOMPARE(problem.topology.effectiveLatencyS(0, 2), problem.topology.latencyS(0, 2));
        const Problem defaults
            = makeProblem(fabric(2, LinkKind::InfiniBand), smallModel(), trainWorkload(8, 512));
        const TransportFigures &ib = transportFigures(Cluster{}, LinkKind::InfiniBand);
        QCOMPARE(defaults.topology.effectiveBandwidthBytesPerS(0, 2), 25e9 * ib.efficiency);
        QVERIFY(dpCommS(nominal, CostModel(CostModelKind::HetPlan))
                < dpCommS(fabric(2, LinkKind::InfiniBand), CostModel(CostModelKind::HetPlan)));
    }

    void measuredPairsKeepTheirFiguresUnlessTheClusterSaysOtherwise()
    {
        // B:0–B:2 (flat 3 and 5) is measured at 5 GB/s, 8 µs: the defaults, which stand for
        // nominal figures, leave it; a cluster's own (calibrated) PCIe entry applies to it.
        Cluster cluster = twoMachineCluster();
        const Problem asMeasured = makeProblem(cluster, smallModel(), trainWorkload(2, 512));
        QCOMPARE(asMeasured.topology.effectiveBandwidthBytesPerS(3, 5), 5e9);
        QCOMPARE(asMeasured.topology.effectiveLatencyS(3, 5), 8e-6);
        cluster.transports = {{LinkKind::Pcie, 0.5, 2.0, 0.5, 0.0, 0.0, "calibrated"}};
        const Problem calibrated = makeProblem(cluster, smallModel(), trainWorkload(2, 512));
        QCOMPARE(calibrated.topology.effectiveBandwidthBytesPerS(3, 5), 2.5e9);
        QVERIFY(near(calibrated.topology.effectiveLatencyS(3, 5), (8 + 2) * 0.5 * 1e-6));

        // An imported probe's intra link is measured too: its origin says so.
        Cluster imported = twoMachineCluster();
        const Problem nominal = makeProblem(imported, smallModel(), trainWorkload(2, 512));
        QVERIFY(nominal.topology.effectiveBandwidthBytesPerS(0, 1) < 100e9);
        imported.origin.figures = {{"/machines/A/intra/bandwidth_GBps", "probe.json", "median"}};
        const Problem probed = makeProblem(imported, smallModel(), trainWorkload(2, 512));
        QCOMPARE(probed.topology.effectiveBandwidthBytesPerS(0, 1), 100e9);
        QVERIFY(probed.topology.effectiveBandwidthBytesPerS(3, 4) < 10e9);
    }

    void measuredLinksAreAchievedRatesLikePairOverrides()
    {
        // An imported probe of three hosts behind a switch (docs/import.md): each machine's link
        // at its fastest measured pair, and one pair (B:0–C:0) whose rate the links did not give
        // exactly as an override, at the same measured 19.1 MB/s and 100 µs as A:0–C:0's path.
        Cluster c;
        c.name = "probed";
        c.switches = {{"switch", {}}};
        for (const char *name : {"A", "B", "C"})
            c.machines.push_back(machine(name, "Fast", 1, 100, 1));
        c.links = {{"A", "switch", LinkKind::Ethernet, 0.1, 50},
                   {"B", "switch", LinkKind::Ethernet, 0.1, 50},
                   {"C", "switch", LinkKind::Ethernet, 0.0191, 50}};
        c.pairOverrides = {{"B:0", "C:0", 0.0191, 100}};
        for (const char *link : {"/links/A/switch/", "/links/B/switch/", "/links/C/switch/"}) {
            c.origin.figures.push_back(
                {std::string(link) + "bandwidth_GBps", "probe.json", "median"});
            c.origin.figures.push_back({std::string(link) + "latency_us", "probe.json", "median"});
        }
        const Problem problem = makeProblem(c, smallModel(), trainWorkload(2, 512));
        const Topology &t = problem.topology;
        QCOMPARE(t.effectiveBandwidthBytesPerS(0, 2), 0.0191e9);
        QCOMPARE(t.effectiveLatencyS(0, 2), 100e-6);
        QCOMPARE(t.effectiveBandwidthBytesPerS(0, 2), t.effectiveBandwidthBytesPerS(1, 2));
        QCOMPARE(t.effectiveLatencyS(0, 2), t.effectiveLatencyS(1, 2));
        QCOMPARE(t.effectiveBandwidthBytesPerS(0, 2, PathKind::Ethernet), 0.0191e9);

        // So a hop into C costs the same from A (over the links) as from B (the override).
        const CostModel hetplan(CostModelKind::HetPlan);
        const auto hopIntoC = [&](int from) {
            Plan plan;
            plan.pipelines = {pipeline(1, 2, {stage({from}, 1, 1, 0, 4), stage({2}, 1, 1, 4, 8)})};
            return hetplan.evaluate(problem, plan).pipelines[0].stages[0].hopS;
        };
        QVERIFY(hopIntoC(0) > 0);
        QCOMPARE(hopIntoC(0), hopIntoC(1));

        // A link the origin does not name is nominal, and the default Ethernet figures apply.
        Cluster drawn = c;
        drawn.origin.figures.erase(drawn.origin.figures.begin(), drawn.origin.figures.begin() + 2);
        const Problem partly = makeProblem(drawn, smallModel(), trainWorkload(2, 512));
        const TransportFigures &ethernet = transportFigures(Cluster{}, LinkKind::Ethernet);
        QCOMPARE(partly.topology.effectiveBandwidthBytesPerS(0, 2), 0.0191e9 * ethernet.efficiency);
        QCOMPARE(partly.topology.effectiveBandwidthBytesPerS(1, 2), 0.0191e9);
    }

    void aHostCeilingBindsOnFastLinksAndHardlyOnSlowOnes()
    {
        // A at 1 GB/s to B, 0.1 GB/s to C; a ceiling of 1 GB/s halves A–B and takes a tenth
        // of a tenth off A–C: 1 / (1 / rate + 1 / ceiling).
        Cluster c;
        c.name = "ceiling";
        c.machines = {machine("A", "Fast", 1, 100, 1), machine("B", "Fast", 1, 100, 1),
                      machine("C", "Fast", 1, 100, 1)};
        c.links
            = {{"A", "B", LinkKind::Ethernet, 1.0, 50}, {"A", "C", LinkKind::Ethernet, 0.1, 50}};
        c.transports = {{LinkKind::Ethernet, 1.0, 0.0, 1.0, 0.0, 0.0, ""}};
        const Problem without = makeProblem(c, smallModel(), trainWorkload(8, 512));
        QCOMPARE(without.topology.effectiveBandwidthBytesPerS(0, 1), 1e9);
        c.transports.front().ceilingGBps = 1.0;
        const Problem with = makeProblem(c, smallModel(), trainWorkload(8, 512));
        QCOMPARE(with.topology.effectiveBandwidthBytesPerS(0, 1), 0.5e9);
        QCOMPARE(with.topology.effectiveBandwidthBytesPerS(0, 2), 1e9 / 11);
    }

    void aMixedPathCountsAsSockets()
    {
        // An InfiniBand hop then an Ethernet hop: no RDMA end to end.
        Cluster c = fabric(2, LinkKind::InfiniBand);
        c.links[1].kind = LinkKind::Ethernet;
        const Problem problem = makeProblem(c, smallModel(), trainWorkload(2, 512));
        QCOMPARE(problem.topology.pairKind(0, 2), LinkKind::Ethernet);
        QCOMPARE(problem.topology.pairKind(0, 1), LinkKind::Pcie);
        const Problem pure
            = makeProblem(fabric(2, LinkKind::Roce), smallModel(), trainWorkload(2, 512));
        QCOMPARE(pure.topology.pairKind(0, 2), LinkKind::Roce);
    }

    void clusterFileRoundTripsAndRefusesBadTransports()
    {
        Cluster c = fabric(2, LinkKind::Roce);
        c.transports = {{LinkKind::Roce, 0.61, 7.5, 0.8, 0.1, 0.0, "fitted from run.json"}};
        QVERIFY(writeCluster(c).find("ceiling_GBps") == std::string::npos); // none: not written
        c.transports.front().ceilingGBps = 3.5;
        const std::string text = writeCluster(c);
        const auto back = parseCluster(text, "c.json");
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QCOMPARE(back->transports, c.transports);

        const auto refused = [&](const std::string &entries, const std::string &expected) {
            std::string bad = text;
            bad.replace(bad.find("\"transports\""), std::string::npos,
                        "\"transports\": " + entries + "}");
            const auto parsed = parseCluster(bad, "c.json");
            QVERIFY(!parsed.ok());
            QVERIFY2(parsed.error().message.find(expected) != std::string::npos,
                     parsed.error().message.c_str());
        };
        refused(R"([{"kind": "roce"}, {"kind": "roce"}])", "transports[1].kind");
        refused(R"([{"kind": "carrier-pigeon"}])", "infiniband");
        refused(R"([{"kind": "roce", "efficiency": 0}])", "transports[0].efficiency");
        refused(R"([{"kind": "roce", "speed": 1}])", "speed");
        refused(R"([{"kind": "roce", "ceiling_GBps": -1}])", "transports[0].ceiling_GBps");
        // What an entry leaves out keeps the default.
        std::string partial = text;
        partial.replace(partial.find("\"transports\""), std::string::npos,
                        R"("transports": [{"kind": "infiniband", "efficiency": 0.9}]})");
        const auto parsed = parseCluster(partial, "c.json");
        QVERIFY(parsed.ok());
        QCOMPARE(parsed->transports.front().latencyUs,
                 transportFigures(Cluster{}, LinkKind::InfiniBand).latencyUs);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCostTransports)
#include "tst_cost_transports.moc"
