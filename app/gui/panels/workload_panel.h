#pragma once

#include <QWidget>

#include <optional>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QStackedWidget;

namespace hetplan::gui {

class Document;

// What to plan for: the model (from the catalog or a model file) and the workload, training
// (batch, micro-batch, sequence, precision, recomputation) or inference (prompt and output
// lengths, request rate, latency target). Every edit is a step on the document's undo stack.
class WorkloadPanel : public QWidget
{
    Q_OBJECT

public:
    WorkloadPanel(Document *document, QWidget *parent);

private:
    void buildTraining(QWidget *page);
    void buildInference(QWidget *page);
    void showDocument();
    // One undo step named `what`; see Document::setWorkload for `mergeKey`.
    void applyWorkload(const QString &what, int mergeKey);
    void chooseModel(int index);
    void changeSloUnit();
    // The reference latency of HexGen §5.1's SLO scale for the document's model and workload;
    // empty when there is no model to plan for.
    std::optional<double> referenceLatencyS() const;
    void showSloSeconds();

    Document *m_document; // Not owned.
    bool m_showing = false;
    // Merge keys: field number + session × kFieldKeys (0: never merges).
    static constexpr int kFieldKeys = 100;
    int m_lastFieldKey = 0;
    int m_mergeSession = 0;
    QComboBox *m_model;
    QLabel *m_modelSummary;
    QComboBox *m_mode;
    QStackedWidget *m_pages;
    // Training.
    QSpinBox *m_globalBatch;
    QSpinBox *m_microBatch;
    QSpinBox *m_seqLen;
    QComboBox *m_precision;
    QComboBox *m_recompute;
    // Inference.
    QSpinBox *m_promptLen;
    QSpinBox *m_outputLen;
    QDoubleSpinBox *m_requestRate;
    // The latency target: seconds, or a multiple of the reference latency.
    QDoubleSpinBox *m_slo;
    QComboBox *m_sloUnit;
    QLabel *m_sloSeconds;
    QComboBox *m_inferPrecision;
};

} // namespace hetplan::gui
