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
