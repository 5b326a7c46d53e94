#pragma once

#include <QFrame>

class QLabel;
class QPushButton;

namespace hetplan::gui {

struct PlanFreshness;

// The line over the results while the shown plan is out of date: what changed since it was
// made, and the two ways to catch up. Hidden while the plan is current.
class StaleBanner : public QFrame
{
    Q_OBJECT

public:
    explicit StaleBanner(QWidget *parent = nullptr);

    void setFreshness(const PlanFreshness &freshness);
    QString text() const;
    QPushButton *reevaluateButton() const { return m_reevaluate; }
    QPushButton *replanButton() const { return m_replan; }

    // `content` with a banner above it, for a dock.
    static QWidget *above(StaleBanner *banner, QWidget *content);

Q_SIGNALS:
    void reevaluateRequested();
    void replanRequested();

private:
    QLabel *m_label;
    QPushButton *m_reevaluate;
    QPushButton *m_replan;
};

} // namespace hetplan::gui
