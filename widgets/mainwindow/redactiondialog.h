// SPDX-License-Identifier: MIT
#pragma once

// Before a report, a Markdown export or a transcript export is written: the secrets found in the
// session (core/redact/redact.h) per rule and message, each masked, with "Redact secrets" (on by
// default for reports and Markdown, off for exports) and Write / Cancel.

#include "core/model/transcript.h"
#include "core/redact/redact.h"

#include <QDialog>

#include <memory>

class QCheckBox;
class QLabel;
class QTableWidget;

namespace cl::gui {

// The rules the GUI applies: the built-in ones, then the user's own patterns from
// <config>/contextlens/redact-patterns.txt when that file exists (one regex per line, "ID: REGEX").
// A file that does not compile is reported in *error and left out.
std::shared_ptr<redact::Rules> redactionRules(QString *error = nullptr);
QString redactionPatternsPath();

class RedactionDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Purpose {
        Report,
        Markdown,
        Export
    };
    RedactionDialog(std::shared_ptr<const Transcript> transcript, Purpose purpose, QWidget *parent = nullptr);

    bool redact() const;
    QCheckBox *redactBox() const { return m_redact; }
    QTableWidget *hitsTable() const { return m_table; } // rule, message, masked excerpt, occurrences
    QString summaryText() const;

private:
    QCheckBox *m_redact;
    QTableWidget *m_table;
    QLabel *m_summary;
};

// Asks (the dialog above) unless the session holds no secret: false when the user cancelled;
// *redact gets the choice (the default when nothing was found).
bool confirmRedaction(const std::shared_ptr<const Transcript> &transcript, RedactionDialog::Purpose purpose, QWidget *parent, bool *redact);

} // namespace cl::gui
