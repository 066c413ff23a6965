// SPDX-License-Identifier: MIT
#include "widgets/strategy/summarizersettings.h"

#include "core/llm/prompts.h"
#include "net/keyring.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHash>
#include <QPushButton>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace cl::gui {

namespace {

const QString kGroup = QStringLiteral("summarizer/");

QString key(const char *name)
{
    return kGroup + QLatin1String(name);
}

// Keys read from the keyring in this run of the program, by name (GUI thread only): a preview does
// not ask the keyring again. Never written anywhere.
QHash<QString, QString> &keyringCache()
{
    static QHash<QString, QString> cache;
    return cache;
}

} // namespace

GuiSummarizer loadSummarizer()
{
    QSettings q;
    GuiSummarizer s;
    s.useModel = q.value(key("useModel"), false).toBool();
    llm::Config &c = s.settings.config;
    c.provider = llm::providerFromName(q.value(key("provider"), QStringLiteral("openai")).toString().toStdString())
                     .value_or(llm::Provider::OpenAIChat);
    c.baseUrl = q.value(key("baseUrl")).toString().toStdString();
    c.model = q.value(key("model")).toString().toStdString();
    c.maxOutputTokens = q.value(key("maxOutputTokens"), 4096).toInt();
    c.temperature = q.value(key("temperature"), 0.2).toDouble();
    c.timeoutMs = q.value(key("timeoutSeconds"), llm::Config().timeoutMs / 1000).toInt() * 1000;
    c.stream = true;
    s.settings.preset = q.value(key("preset")).toString().toStdString();
    s.settings.verify = q.value(key("verify"), false).toBool();
    s.settings.keepDroppedFacts = q.value(key("keepDroppedFacts"), false).toBool();
    const QString defaultCache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/summaries");
    s.settings.cacheDir = q.value(key("cacheDir"), defaultCache).toString().toStdString();
    s.apiKeyVariable = q.value(key("apiKeyVariable")).toString();
    s.keyInKeyring = q.value(key("keyInKeyring"), false).toBool();
    s.settings.systemTemplate = q.value(key("systemTemplate")).toString().toStdString();
    return s;
}

void saveSummarizer(const GuiSummarizer &s)
{
    QSettings q;
    const llm::Config &c = s.settings.config;
    q.setValue(key("useModel"), s.useModel);
    q.setValue(key("provider"), QString::fromUtf8(llm::providerName(c.provider).data()));
    q.setValue(key("baseUrl"), QString::fromStdString(c.baseUrl));
    q.setValue(key("model"), QString::fromStdString(c.model));
    q.setValue(key("maxOutputTokens"), c.maxOutputTokens);
    q.setValue(key("temperature"), c.temperature);
    q.setValue(key("timeoutSeconds"), c.timeoutMs / 1000);
    q.setValue(key("preset"), QString::fromStdString(s.settings.preset));
    q.setValue(key("verify"), s.settings.verify);
    q.setValue(key("keepDroppedFacts"), s.settings.keepDroppedFacts);
    q.setValue(key("cacheDir"), QString::fromStdString(s.settings.cacheDir));
    q.setValue(key("apiKeyVariable"), s.apiKeyVariable); // the variable's name, never the key
    q.setValue(key("keyInKeyring"), s.keyInKeyring);     // whether to ask the keyring, never the key
    q.setValue(key("systemTemplate"), QString::fromStdString(s.settings.systemTemplate));
}

QString keyName(const GuiSummarizer &s)
{
    return s.apiKeyVariable.isEmpty() ? QString::fromStdString(llm::defaultApiKeyVariable(s.settings.config.provider))
                                      : s.apiKeyVariable;
}

llm::SummarizerSettings withKey(const GuiSummarizer &s, QString *note)
{
    llm::SummarizerSettings out = s.settings;
    const QString variable = keyName(s);
    QString keyringProblem;
    if (s.keyInKeyring) {
        auto it = keyringCache().constFind(variable);
        if (it == keyringCache().constEnd()) {
            const net::keyring::Outcome read = net::keyring::read(variable.toStdString());
            if (read.ok)
                it = keyringCache().insert(variable, QString::fromStdString(read.value));
            else
                keyringProblem = QString::fromStdString(read.error);
        }
        if (it != keyringCache().constEnd()) {
            out.config.apiKey = it->toStdString();
            if (note)
                *note = QObject::tr("key from the system keyring (%1)").arg(variable);
            return out;
        }
    }
    const QByteArray value = qgetenv(variable.toLocal8Bit().constData());
    out.config.apiKey = value.toStdString();
    if (note) {
        *note = value.isEmpty() ? QObject::tr("no key: %1 is not set (fine for a local server)").arg(variable)
                                : QObject::tr("key from %1").arg(variable);
        if (!keyringProblem.isEmpty())
            *note = QObject::tr("keyring: %1; %2").arg(keyringProblem, *note);
    }
    return out;
}

QString describe(const GuiSummarizer &s)
{
    if (!s.useModel)
        return QObject::tr("Rules (offline)");
    return QObject::tr("Model: %1 %2")
        .arg(QString::fromUtf8(llm::providerName(s.settings.config.provider).data()), QString::fromStdString(s.settings.config.model));
}

SummarizerDialog::SummarizerDialog(const GuiSummarizer &current, QWidget *parent)
    : QDialog(parent)
    , m_mode(new QComboBox(this))
    , m_provider(new QComboBox(this))
    , m_baseUrl(new QLineEdit(this))
    , m_model(new QLineEdit(this))
    , m_keyVariable(new QLineEdit(this))
    , m_keyNote(new QLabel(this))
    , m_useKeyring(new QCheckBox(tr("Read the key from the system keyring"), this))
    , m_keyEntry(new QLineEdit(this))
    , m_keyringNote(new QLabel(this))
    , m_preset(new QComboBox(this))
    , m_maxOutput(new QSpinBox(this))
    , m_temperature(new QDoubleSpinBox(this))
    , m_timeout(new QSpinBox(this))
    , m_verify(new QCheckBox(tr("Check the summary with a second call"), this))
    , m_keepFacts(new QCheckBox(tr("Append the facts the summary dropped"), this))
    , m_cacheDir(new QLineEdit(this))
    , m_template(new QPlainTextEdit(this))
{
    setWindowTitle(tr("Summaries"));
    setObjectName(QStringLiteral("summarizerDialog"));
    m_mode->addItem(tr("Rules (offline, deterministic)"), false);
    m_mode->addItem(tr("A model"), true);
    m_mode->setCurrentIndex(current.useModel ? 1 : 0);
    for (const llm::Provider p : llm::allProviders())
        m_provider->addItem(QString::fromUtf8(llm::providerName(p).data()), int(p));
    m_provider->setCurrentIndex(m_provider->findData(int(current.settings.config.provider)));
    m_provider->setToolTip(tr("openai: any OpenAI-compatible server (OpenAI, Ollama, llama.cpp, vLLM, LM Studio, OpenRouter)"));
    m_baseUrl->setText(QString::fromStdString(current.settings.config.baseUrl));
    m_baseUrl->setPlaceholderText(tr("default of the provider; e.g. http://127.0.0.1:11434/v1 for Ollama"));
    m_model->setText(QString::fromStdString(current.settings.config.model));
    m_model->setPlaceholderText(tr("a small model is enough, e.g. claude-3-5-haiku-latest, gpt-4o-mini, qwen2.5:7b"));
    m_keyVariable->setText(current.apiKeyVariable);
    m_keyVariable->setToolTip(tr("The environment variable holding the API key, and the key's name in the system keyring. "
                                 "The key itself is never written to the settings."));
    m_keyNote->setObjectName(QStringLiteral("keyNote"));
    m_useKeyring->setObjectName(QStringLiteral("useKeyring"));
    m_useKeyring->setChecked(current.keyInKeyring);
    m_keyEntry->setObjectName(QStringLiteral("keyEntry"));
    m_keyEntry->setEchoMode(QLineEdit::Password);
    m_keyEntry->setPlaceholderText(tr("paste a key to store it in the keyring"));
    m_keyringNote->setObjectName(QStringLiteral("keyringNote"));
    m_keyringNote->setWordWrap(true);
    auto *storeKey = new QPushButton(tr("Store"), this);
    storeKey->setObjectName(QStringLiteral("storeKey"));
    auto *removeKey = new QPushButton(tr("Remove"), this);
    removeKey->setObjectName(QStringLiteral("removeKey"));
    auto *keyRow = new QHBoxLayout;
    keyRow->addWidget(m_keyEntry, 1);
    keyRow->addWidget(storeKey);
    keyRow->addWidget(removeKey);
    connect(storeKey, &QPushButton::clicked, this, &SummarizerDialog::storeKey);
    connect(removeKey, &QPushButton::clicked, this, &SummarizerDialog::removeKey);
    if (!net::keyring::compiledIn()) {
        for (QWidget *w : std::initializer_list<QWidget *>{m_useKeyring, m_keyEntry, storeKey, removeKey})
            w->setEnabled(false);
        m_useKeyring->setChecked(false);
        m_keyringNote->setText(tr("<small>This build has no keyring support: keys come from the environment.</small>"));
    }
    m_preset->addItem(tr("as the strategy writes it"), QString());
    for (const auto &name : llm::presetNames())
        m_preset->addItem(QString::fromStdString(name), QString::fromStdString(name));
    m_preset->setCurrentIndex(std::max(0, m_preset->findData(QString::fromStdString(current.settings.preset))));
    m_maxOutput->setRange(64, 200000);
    m_maxOutput->setValue(current.settings.config.maxOutputTokens);
    m_temperature->setRange(0, 2);
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(current.settings.config.temperature);
    m_timeout->setRange(5, 3600);
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setValue(current.settings.config.timeoutMs / 1000);
    m_verify->setChecked(current.settings.verify);
    m_keepFacts->setChecked(current.settings.keepDroppedFacts);
    m_cacheDir->setText(QString::fromStdString(current.settings.cacheDir));
    m_cacheDir->setToolTip(tr("Answers are kept here, so that previewing the same summary again costs nothing (empty: no cache)"));

    m_template->setObjectName(QStringLiteral("systemTemplate"));
    m_template->setPlainText(QString::fromStdString(current.settings.systemTemplate));
    m_template->setPlaceholderText(tr("empty: the summary structure's own instruction. The history always follows as "
                                      "data, and a strategy's custom compact instructions are added."));
    m_template->setFixedHeight(m_template->fontMetrics().lineSpacing() * 5 + 12);
    auto *fromPreset = new QPushButton(tr("Start from the structure's instruction"), this);
    fromPreset->setObjectName(QStringLiteral("templateFromPreset"));
    connect(fromPreset, &QPushButton::clicked, this, [this] {
        const std::string name = m_preset->currentData().toString().toStdString();
        m_template->setPlainText(QString::fromStdString(llm::preset(name.empty() ? std::string("claude-code") : name).system));
    });
    auto *templateBox = new QVBoxLayout;
    templateBox->addWidget(m_template);
    templateBox->addWidget(fromPreset, 0, Qt::AlignLeft);

    auto *form = new QFormLayout;
    form->addRow(tr("Summaries by"), m_mode);
    form->addRow(tr("Provider"), m_provider);
    form->addRow(tr("Base URL"), m_baseUrl);
    form->addRow(tr("Model"), m_model);
    form->addRow(tr("API key variable"), m_keyVariable);
    form->addRow(QString(), m_keyNote);
    form->addRow(QString(), m_useKeyring);
    form->addRow(tr("Keyring"), keyRow);
    form->addRow(QString(), m_keyringNote);
    form->addRow(tr("Summary structure"), m_preset);
    form->addRow(tr("Instruction"), templateBox);
    form->addRow(tr("Max output tokens"), m_maxOutput);
    form->addRow(tr("Temperature"), m_temperature);
    form->addRow(tr("Timeout (whole call)"), m_timeout);
    form->addRow(QString(), m_verify);
    form->addRow(QString(), m_keepFacts);
    form->addRow(tr("Answer cache"), m_cacheDir);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    connect(m_provider, &QComboBox::currentIndexChanged, this, &SummarizerDialog::updateKeyNote);
    connect(m_keyVariable, &QLineEdit::textChanged, this, &SummarizerDialog::updateKeyNote);
    connect(m_useKeyring, &QCheckBox::toggled, this, &SummarizerDialog::updateKeyNote);
    auto enable = [this] {
        const bool model = m_mode->currentData().toBool();
        for (QWidget *w : std::initializer_list<QWidget *>{m_provider, m_baseUrl, m_model, m_keyVariable, m_preset, m_maxOutput,
                                                           m_temperature, m_timeout, m_verify, m_keepFacts, m_cacheDir, m_template})
            w->setEnabled(model);
    };
    connect(m_mode, &QComboBox::currentIndexChanged, this, enable);
    enable();
    updateKeyNote();
}

void SummarizerDialog::updateKeyNote()
{
    QString note;
    (void)withKey(value(), &note);
    m_keyNote->setText(QStringLiteral("<small>%1</small>").arg(note.toHtmlEscaped()));
}

void SummarizerDialog::storeKey()
{
    const QString secret = m_keyEntry->text().trimmed();
    if (secret.isEmpty()) {
        m_keyringNote->setText(tr("<small>Paste the key first.</small>"));
        return;
    }
    const QString name = keyName(value());
    const net::keyring::Outcome out = net::keyring::write(name.toStdString(), secret.toStdString());
    m_keyEntry->clear(); // the key is not kept in the dialog either way
    if (!out.ok) {
        m_keyringNote->setText(tr("<small>Not stored: %1. Set %2 in the environment instead.</small>")
                                   .arg(QString::fromStdString(out.error).toHtmlEscaped(), name));
        return;
    }
    keyringCache().insert(name, secret);
    m_useKeyring->setChecked(true);
    m_keyringNote->setText(tr("<small>Stored in the system keyring as ContextLens / %1.</small>").arg(name));
    updateKeyNote();
}

void SummarizerDialog::removeKey()
{
    const QString name = keyName(value());
    keyringCache().remove(name);
    const net::keyring::Outcome out = net::keyring::remove(name.toStdString());
    m_keyringNote->setText(out.ok         ? tr("<small>Removed ContextLens / %1 from the system keyring.</small>").arg(name)
                           : out.notFound ? tr("<small>The keyring holds no key named %1.</small>").arg(name)
                                          : tr("<small>Not removed: %1.</small>").arg(QString::fromStdString(out.error).toHtmlEscaped()));
    m_useKeyring->setChecked(false);
    updateKeyNote();
}

GuiSummarizer SummarizerDialog::value() const
{
    GuiSummarizer s;
    s.useModel = m_mode->currentData().toBool();
    llm::Config &c = s.settings.config;
    c.provider = llm::Provider(m_provider->currentData().toInt());
    c.baseUrl = m_baseUrl->text().trimmed().toStdString();
    c.model = m_model->text().trimmed().toStdString();
    c.maxOutputTokens = m_maxOutput->value();
    c.temperature = m_temperature->value();
    c.timeoutMs = m_timeout->value() * 1000;
    s.settings.preset = m_preset->currentData().toString().toStdString();
    s.settings.verify = m_verify->isChecked();
    s.settings.keepDroppedFacts = m_keepFacts->isChecked();
    s.settings.cacheDir = m_cacheDir->text().trimmed().toStdString();
    s.apiKeyVariable = m_keyVariable->text().trimmed();
    s.keyInKeyring = m_useKeyring->isChecked();
    const QString templ = m_template->toPlainText();
    s.settings.systemTemplate = templ.trimmed().isEmpty() ? std::string() : templ.toStdString();
    return s;
}

} // namespace cl::gui
