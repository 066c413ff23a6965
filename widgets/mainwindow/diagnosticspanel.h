// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/transcript.h"

#include <QDockWidget>

class QTreeView;

namespace cl::gui {

class DiagnosticsModel;

// Dock listing every loader diagnostic; double-click asks to jump to its source line.
class DiagnosticsPanel : public QDockWidget
{
    Q_OBJECT
public:
    explicit DiagnosticsPanel(QWidget *parent = nullptr);

    void setTranscript(const Transcript *transcript);
    DiagnosticsModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }

Q_SIGNALS:
    void lineActivated(quint32 line);

private:
    DiagnosticsModel *m_model;
    QTreeView *m_view;
};

} // namespace cl::gui
