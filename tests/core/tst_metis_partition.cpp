// The METIS wrapper: cuts where the weak edges are, respects the balance constraint, answers the
// trivial cases without METIS, and is deterministic for a seed.
#include "core/planners/metis_partition.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <algorithm>
#include <set>

using namespace hetplan;

namespace {

// Two cliques of `size` vertices with heavy internal edges, joined by one light edge.
WeightedGraph twoCliques(int size, double heavy, double light)
{
    WeightedGraph graph;
    graph.vertexWeights.assign(size_t(2 * size), 1.0);
    for (int c = 0; c < 2; ++c)
        for (int i = 0; i < size; ++i)
            for (int j = i + 1; j < size; ++j)
                graph.edges.push_back({c * size + i, c * size + j, heavy});
    graph.edges.push_back({0, size, light});
    return graph;
}

} // namespace

class TestMetisPartition : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cutsTheWeakEdge_data()
    {
        QTest::addColumn<int>("method");
        QTest::newRow("k-way") << int(PartitionMethod::KWay);
        QTest::newRow("recursive bisection") << int(PartitionMethod::RecursiveBisection);
    }

    void cutsTheWeakEdge()
    {
        QFETCH(int, method);
        PartitionOptions options;
        options.parts = 2;
        options.method = PartitionMethod(method);
        const auto part = partitionGraph(twoCliques(4, 200.0, 1.0), options);
        QVERIFY(part.ok());
        for (int v = 1; v < 4; ++v) {
            QCOMPARE(part.value()[size_t(v)], part.value()[0]);
            QCOMPARE(part.value()[size_t(4 + v)], part.value()[4]);
        }
        QVERIFY(part.value()[0] != part.value()[4]);
    }

    void realWeightsKeepTheirRatios()
    {
        // Bandwidths far below 1 must not all round to the same integer: 0.7 GB/s between the
        // cliques, 0.001-scale differences elsewhere would be lost without scaling.
        const auto part = partitionGraph(twoCliques(3, 0.7, 0.01), PartitionOptions{});
        QVERIFY(part.ok());
        QCOMPARE(part.value()[1], part.value()[0]);
        QVERIFY(part.value()[0] != part.value()[3]);
    }

    void balanceFollowsVertexWeights()
    {
        // A chain of 8 equal vertices into 4 parts: every part gets two.
        WeightedGraph graph;
        graph.vertexWeights.assign(8, 10.0);
        for (int v = 0; v + 1 < 8; ++v)
            graph.edges.push_back({v, v + 1, 5.0});
        PartitionOptions options;
        options.parts = 4;
        options.ufactor = 1;
        const auto part = partitionGraph(graph, options);
        QVERIFY(part.ok());
        std::vector<int> sizes(4, 0);
        for (int p : part.value())
            ++sizes[size_t(p)];
        QCOMPARE(sizes, std::vector<int>(4, 2));
    }

    void trivialCasesSkipMetis()
    {
        WeightedGraph graph;
        graph.vertexWeights = {1, 2, 3};
        PartitionOptions options;
        options.parts = 1;
        QCOMPARE(partitionGraph(graph, options).value(), std::vector<int>({0, 0, 0}));
        options.parts = 5;
        QCOMPARE(partitionGraph(graph, options).value(), std::vector<int>({0, 1, 2}));
        QVERIFY(partitionGraph(WeightedGraph{}, options).value().empty());
    }

    void graphWithoutEdges()
    {
        WeightedGraph graph;
        graph.vertexWeights.assign(6, 1.0);
        PartitionOptions options;
        options.parts = 3;
        const auto part = partitionGraph(graph, options);
        QVERIFY(part.ok());
        QCOMPARE(part.value().size(), size_t(6));
        for (int p : part.value())
            QVERIFY(p >= 0 && p < 3);
    }

    void sameSeedSamePartition()
    {
        WeightedGraph graph;
        for (int v = 0; v < 40; ++v)
            graph.vertexWeights.push_back(1 + v % 5);
        for (int v = 0; v < 40; ++v)
            for (int w : {v + 1, v + 7, v + 13})
                if (w < 40)
                    graph.edges.push_back({v, w, 1.0 + (v * 31 + w) % 17});
        PartitionOptions options;
        options.parts = 5;
        options.method = PartitionMethod::KWay;
        options.seed = 42;
        const auto first = partitionGraph(graph, options);
        const auto second = partitionGraph(graph, options);
        QVERIFY(first.ok() && second.ok());
        QCOMPARE(first.value(), second.value());
        QCOMPARE(std::set<int>(first.value().begin(), first.value().end()).size(), size_t(5));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestMetisPartition)
#include "tst_metis_partition.moc"
