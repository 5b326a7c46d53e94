#pragma once

// Shared by the canvas tests: bundled clusters, a shown canvas, and screenshots on request.

#include "canvas/cluster_scene.h"
#include "canvas/cluster_view.h"
#include "canvas/node_item.h"
#include "core/io/loaders.h"
#include "model/cluster_model.h"

#include <QDir>
#include <QTest>

#include <memory>

namespace hetplan::gui::test {

inline Cluster bundledCluster(const char *name)
{
    Result<Cluster> cluster = loadCluster(name);
    if (!cluster)
        qFatal("%s", cluster.error().message.c_str());
    return *cluster;
}

// Three unlinked 4-GPU machines A, B, C in a row, 400 scene units apart.
inline Cluster threeMachines()
{
    Cluster c;
    c.name = "three";
    for (const auto &[name, x] : {std::pair{"A", 0.0}, {"B", 400.0}, {"C", 800.0}}) {
        Machine m;
        m.name = name;
        m.gpu = "A100-80G";
        m.count = 4;
        m.position = {x, 0};
        c.machines.push_back(m);
    }
    return c;
}

// A model with a scene and a shown view, as in the window.
struct Canvas
{
    explicit Canvas(const Cluster &cluster, QSize size = {1000, 700})
        : model(std::make_unique<ClusterModel>())
    {
        if (Status s = model->reset(cluster); !s)
            qFatal("%s", s.error().message.c_str());
        scene = std::make_unique<ClusterScene>(model.get(), nullptr);
        view = std::make_unique<ClusterView>(scene.get(), nullptr);
        view->resize(size);
        view->show();
        if (!QTest::qWaitForWindowExposed(view.get()))
            qWarning("canvas window not exposed");
        view->setZoom(1.0);
        view->centerOn(scene->contentRect().center());
    }

    QPoint viewportPoint(QPointF scenePos) const { return view->mapFromScene(scenePos); }
    QPoint nodePoint(ItemId id) const { return viewportPoint(scene->itemFor(id)->pos()); }

    std::unique_ptr<ClusterModel> model;
    std::unique_ptr<ClusterScene> scene;
    std::unique_ptr<ClusterView> view;
};

// Saves a picture of the view when HETPLAN_SCREENSHOT_DIR names a folder, for a person to
// look at; a test never compares pixels.
inline void saveScreenshot(QWidget *view, const QString &name)
{
    const QString dir = qEnvironmentVariable("HETPLAN_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    QVERIFY(view->grab().save(dir + QLatin1Char('/') + name));
}

} // namespace hetplan::gui::test
