// SPDX-License-Identifier: MIT
#pragma once
// The banner over the transcript that says a compaction ContextLens saved is no longer live: the
// agent continued from before it (core/workflow/undonecompaction.h). Its Re-apply button asks the
// window to run the same strategies again on the transcript as it is now, as one undoable step.

#include <QFrame>
#include <QStringList>

class QLabel;
class QPushButton;

namespace cl::gui {

class UndoneBanner : public QFrame
{
    Q_OBJECT
public:
    explicit UndoneBanner(QWidget *parent = nullptr);

    // What to say, one line per undone compaction; empty hides the banner. reapplyWhy: why Re-apply
    // cannot run (empty: it can).
    void setUndone(const QStringList &lines, const QString &reapplyWhy = {});
    QLabel *label() const { return m_label; }
    QPushButton *reapplyButton() const { return m_reapply; }

Q_SIGNALS:
    void reapplyRequested();

private:
    QLabel *m_label;
    QPushButton *m_reapply;
};

} // namespace cl::gui
