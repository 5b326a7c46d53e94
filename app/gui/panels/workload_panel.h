#pragma once

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QStackedWidget;

namespace hetplan::gui {

class Document;

// What to plan for: the model (from the catalog or a model file) and the workload, training
// (batch, micro-batch, sequence, precision, recomputation) or inference (prompt and output
// lengths, request rate, latency target). Edits go straight to the document.
class WorkloadPanel : public QWidget
{
    Q_OBJECT

public:
    WorkloadPanel(Document *document, QWidget *parent);

private:
    void buildTraining(QWidget *page);
    void buildInference(QWidget *page);
    void showDocument();
    void applyWorkload();
    void chooseModel(int index);

    Document *m_document; // Not owned.
    bool m_showing = false;
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
    QDoubleSpinBox *m_sloS;
    QComboBox *m_inferPrecision;
};

} // namespace hetplan::gui
