// SPDX-License-Identifier: MIT
#pragma once

// The model summarizer's settings in the GUI (docs/design/summaries.md): kept in QSettings
// ("summarizer/…") except the API key, which comes from the system keyring (net/keyring.h) when the
// user stored it there, else from an environment variable, and is never written to a settings file,
// log, export or report. SummarizerDialog edits them and stores or removes the key in the keyring.

#include "core/llm/settings.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace cl::gui {

struct GuiSummarizer {
    bool useModel = false; // false: the rule-based summaries (offline)
    llm::SummarizerSettings settings;
    QString apiKeyVariable;    // "" = the provider's usual one; also the key's name in the keyring
    bool keyInKeyring = false; // read the key from the system keyring (the environment when that fails)
};
GuiSummarizer loadSummarizer();
void saveSummarizer(const GuiSummarizer &s);
// The key's name: apiKeyVariable, else the provider's usual variable (ANTHROPIC_API_KEY, …).
QString keyName(const GuiSummarizer &s);
// The settings with the key: from the system keyring when keyInKeyring (read once per run of the
// program, GUI thread only), else or when that fails from the environment; *note says where it came
// from, or why the keyring could not give it, or that there is none.
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
    void storeKey();
    void removeKey();

    QComboBox *m_mode;
    QComboBox *m_provider;
    QLineEdit *m_baseUrl;
    QLineEdit *m_model;
    QLineEdit *m_keyVariable;
    QLabel *m_keyNote;
    QCheckBox *m_useKeyring;
    QLineEdit *m_keyEntry;
    QLabel *m_keyringNote;
    QComboBox *m_preset;
    QSpinBox *m_maxOutput;
    QDoubleSpinBox *m_temperature;
    QSpinBox *m_timeout;
    QCheckBox *m_verify;
    QCheckBox *m_keepFacts;
    QLineEdit *m_cacheDir;
    QPlainTextEdit *m_template;
};

} // namespace cl::gui
