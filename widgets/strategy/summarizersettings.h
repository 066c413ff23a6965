// SPDX-License-Identifier: MIT
#pragma once

// The model summarizer's settings in the GUI (docs/design/summaries.md): kept in QSettings
// ("summarizer/…") except the API key, which is read from an environment variable at run time and
// never written anywhere. SummarizerDialog edits them.

#include "core/llm/settings.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace cl::gui {

struct GuiSummarizer {
    bool useModel = false; // false: the rule-based summaries (offline)
    llm::SummarizerSettings settings;
    QString apiKeyVariable; // "" = the provider's usual one
};
GuiSummarizer loadSummarizer();
void saveSummarizer(const GuiSummarizer &s);
// The settings with the key read from the environment; *note says where it came from or that none was found.
llm::SummarizerSettings withKey(const GuiSummarizer &s, QString *note = nullptr);
QString describe(const GuiSummarizer &s); // "Model: anthropic claude-3-5-haiku-latest" / "Rules (offline)"

class SummarizerDialog : public QDialog
{
    Q_OBJECT
public:
    explicit SummarizerDialog(const GuiSummarizer &current, QWidget *parent = nullptr);
    GuiSummarizer value() const;

private:
    void updateKeyNote();

    QComboBox *m_mode;
    QComboBox *m_provider;
    QLineEdit *m_baseUrl;
    QLineEdit *m_model;
    QLineEdit *m_keyVariable;
    QLabel *m_keyNote;
    QComboBox *m_preset;
    QSpinBox *m_maxOutput;
    QDoubleSpinBox *m_temperature;
    QSpinBox *m_timeout;
    QCheckBox *m_verify;
    QCheckBox *m_keepFacts;
    QLineEdit *m_cacheDir;
};

} // namespace cl::gui
