// SPDX-License-Identifier: MIT
#include "widgets/strategy/operationsdialog.h"
#include "widgets/models/qtext.h"
#include "net/modelsummarizer.h"

#include "widgets/strategy/paramform.h"
#include "core/strategies/registry.h"
#include "widgets/strategy/operationsstore.h"
#include "widgets/models/roles.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace cl::gui {

namespace {

// The seed fields have their own editors; the strategy's form shows only its other parameters.
bool isSeedField(const std::string &name)
{
    static const std::string keys[] = {"maxTurns", "keepRecent", "maxToolOutput", "summaryMaxChars", "autoCompress",
                                       "importanceThreshold"};
    return std::find(std::begin(keys), std::end(keys), name) != std::end(keys);
}

QSpinBox *spin(int min, int max, QWidget *parent)
{
    auto *s = new QSpinBox(parent);
    s->setRange(min, max);
    s->setGroupSeparatorShown(true);
    return s;
}

} // namespace

OperationsDialog::OperationsDialog(QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("operationsDialog"));
    setWindowTitle(tr("Compression operations"));

    // Status.
    auto *statusBox = new QGroupBox(tr("Status"), this);
    m_statusText = new QLabel(statusBox);
    m_statusText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_statusText->setWordWrap(true);
    m_error = new QLabel(statusBox);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #c62828"));
    m_error->hide();
    m_compress = new QPushButton(tr("Compress now"), statusBox);
    m_compress->setToolTip(tr("Run the configured strategy on this transcript (the result is applied as an undoable edit)"));
    m_result = new QLabel(statusBox);
    m_result->setObjectName(QStringLiteral("compressResult"));
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_cancel = new QPushButton(tr("Cancel"), statusBox);
    m_cancel->setObjectName(QStringLiteral("cancelCompress"));
    m_cancel->hide();
    m_withModel = new QCheckBox(tr("Let the model write the summary"), statusBox);
    m_withModel->setObjectName(QStringLiteral("compressWithModel"));
    auto *compressRow = new QHBoxLayout;
    compressRow->addWidget(m_compress);
    compressRow->addWidget(m_cancel);
    compressRow->addWidget(m_withModel);
    compressRow->addWidget(m_result, 1);
    auto *statusLayout = new QVBoxLayout(statusBox);
    statusLayout->addWidget(m_statusText);
    statusLayout->addWidget(m_error);
    statusLayout->addLayout(compressRow);
    m_beside = new QCheckBox(tr("Keep the configuration and summaries beside the transcript (.compression/)"), statusBox);
    m_beside->setObjectName(QStringLiteral("storeBesideTranscript"));
    m_beside->setToolTip(tr("Off: they live in ContextLens's own data folder, and nothing is written into the agent's "
                            "folders. A .compression/ folder that already exists beside the transcript is always used."));
    m_beside->setChecked(operationsStoreBeside());
    connect(m_beside, &QCheckBox::toggled, this, [this](bool on) {
        setOperationsStoreBeside(on);
        if (!m_transcriptPath.isEmpty())
            m_store = ops::Store::inFolder(operationsStoreFolder(m_transcriptPath, on).toStdString());
        refresh();
    });
    statusLayout->addWidget(m_beside);

    // Config.
    auto *configBox = new QGroupBox(tr("Configuration (config.json)"), this);
    m_maxTurns = spin(1, 1000000, configBox);
    m_maxTurns->setToolTip(tr("Turns kept in the window before compressing"));
    m_keepRecent = spin(0, 1000000, configBox);
    m_keepRecent->setToolTip(tr("Recent turns always kept whole"));
    m_maxToolOutput = spin(1, 100000000, configBox);
    m_maxToolOutput->setToolTip(tr("Tool output longer than this (characters) is truncated"));
    m_summaryMaxChars = spin(1, 100000000, configBox);
    m_summaryMaxChars->setToolTip(tr("Longest summary, in characters"));
    m_autoCompress = new QCheckBox(tr("Compress automatically when the history exceeds 2 \u00d7 keep recent"), configBox);
    m_importance = new QDoubleSpinBox(configBox);
    m_importance->setRange(0, 1);
    m_importance->setSingleStep(0.05);
    m_importance->setDecimals(2);
    m_importance->setToolTip(tr("Old messages scoring at least this are kept"));
    m_strategy = new QComboBox(configBox);
    for (const strategy::Strategy *s : strategy::all())
        m_strategy->addItem(QStringLiteral("%1 (%2)").arg(qs(s->title()), qs(s->name())), qs(s->name()));
    m_params = new ParamForm(configBox);
    m_save = new QPushButton(tr("Save configuration"), configBox);
    auto *form = new QFormLayout;
    form->addRow(tr("Max turns"), m_maxTurns);
    form->addRow(tr("Keep recent"), m_keepRecent);
    form->addRow(tr("Max tool output"), m_maxToolOutput);
    form->addRow(tr("Summary max chars"), m_summaryMaxChars);
    form->addRow(tr("Importance threshold"), m_importance);
    form->addRow(QString(), m_autoCompress);
    form->addRow(tr("Strategy"), m_strategy);
    auto *configLayout = new QVBoxLayout(configBox);
    configLayout->addLayout(form);
    configLayout->addWidget(m_params);
    configLayout->addWidget(m_save, 0, Qt::AlignRight);

    // Summaries.
    auto *summaryBox = new QGroupBox(tr("Summaries (summaries.json)"), this);
    m_latest = spin(1, 1000, summaryBox);
    m_latest->setValue(10);
    m_summaries = new QTreeWidget(summaryBox);
    m_summaries->setObjectName(QStringLiteral("summaryList"));
    m_summaries->setRootIsDecorated(false);
    m_summaries->setHeaderLabels({tr("When"), tr("Strategy"), tr("Messages"), tr("Tokens"), tr("Summary")});
    m_summaries->header()->setStretchLastSection(true);
    auto *latestRow = new QHBoxLayout;
    latestRow->addWidget(new QLabel(tr("Latest"), summaryBox));
    latestRow->addWidget(m_latest);
    latestRow->addStretch(1);
    m_detail = new QTextBrowser(summaryBox);
    m_detail->setObjectName(QStringLiteral("summaryDetail"));
    m_detail->setPlaceholderText(tr("No summary yet: \"Compress now\" records one when its strategy writes a summary."));
    auto *summaryLayout = new QVBoxLayout(summaryBox);
    summaryLayout->addLayout(latestRow);
    summaryLayout->addWidget(m_summaries, 2);
    summaryLayout->addWidget(m_detail, 3);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto *left = new QVBoxLayout;
    left->addWidget(statusBox);
    left->addWidget(configBox);
    left->addStretch(1);
    auto *columns = new QHBoxLayout;
    columns->addLayout(left, 2);
    columns->addWidget(summaryBox, 3);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(columns, 1);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_compress, &QPushButton::clicked, this, &OperationsDialog::compressNow);
    connect(m_cancel, &QPushButton::clicked, this, &OperationsDialog::cancelCompress);
    connect(m_save, &QPushButton::clicked, this, &OperationsDialog::saveConfig);
    connect(m_strategy, &QComboBox::currentIndexChanged, this, [this] { strategyChanged(); });
    connect(m_latest, &QSpinBox::valueChanged, this, [this] { fillSummaries(); });
    connect(m_summaries, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        m_detail->setHtml(item ? item->data(0, DetailHtmlRole).toString() : QString());
    });
    resize(1000, 640);
    setModelSummarizer(loadSummarizer());
    refresh();
}

OperationsDialog::~OperationsDialog()
{
    m_job.cancel(); // aborts a model call; the worker only uses what it captured
}

void OperationsDialog::setModelSummarizer(const GuiSummarizer &s)
{
    m_gui = s;
    m_withModel->setEnabled(s.useModel && !m_job.isRunning());
    if (!s.useModel)
        m_withModel->setChecked(false);
    m_withModel->setToolTip(s.useModel ? tr("%1 writes the summary of \"Compress now\"; summaries.json records the model "
                                            "and its cost")
                                             .arg(describe(s))
                                       : tr("Configure a model in the strategy dock (Summaries\u2026) first"));
}

void OperationsDialog::setTranscript(std::shared_ptr<const Transcript> transcript, const QString &transcriptPath,
                                     analysis::AnalysisOptions options, std::vector<std::size_t> pinned,
                                     std::vector<std::string> exemptTools)
{
    if (m_job.isRunning() && transcript != m_transcript) {
        m_job.cancel(); // its result is for the transcript that was
        setCompressing(false);
    }
    m_transcript = std::move(transcript);
    m_transcriptPath = transcriptPath;
    m_store = ops::Store::inFolder(operationsStoreFolder(transcriptPath, operationsStoreBeside()).toStdString());
    m_options = std::move(options);
    m_pinned = std::move(pinned);
    m_exempt = std::move(exemptTools);
    m_result->clear();
    refresh();
}

QString OperationsDialog::lastCompressText() const
{
    return m_result->text();
}

void OperationsDialog::showError(const QString &text)
{
    m_error->setText(text);
    m_error->setVisible(!text.isEmpty());
}

void OperationsDialog::refresh()
{
    static const Transcript empty;
    m_status = ops::status(m_transcript ? *m_transcript : empty, m_store, m_options);
    fillConfig(m_status.config);
    fillStatus();
    fillSummaries();
}

void OperationsDialog::fillStatus()
{
    const QLocale loc;
    const ops::Status &s = m_status;
    QString text = tr("Folder: %1").arg(qs(m_store.dir()).toHtmlEscaped()) + QStringLiteral("<br>")
                   + tr("Strategy: <b>%1</b>").arg(qs(s.strategy).toHtmlEscaped()) + QStringLiteral("<br>")
                   + tr("Messages: %1 \u00b7 %2 tokens (estimate)")
                         .arg(loc.toString(qulonglong(s.totalMessages)), loc.toString(s.tokens))
                   + QStringLiteral("<br>")
                   + tr("Compacted so far: %1 messages \u00b7 %2 tokens saved (%3)")
                         .arg(loc.toString(qulonglong(s.compactedMessages)), loc.toString(s.tokensSaved),
                              s.summaryCount == 1 ? tr("1 summary") : tr("%1 summaries").arg(s.summaryCount))
                   + QStringLiteral("<br>");
    if (s.needs.needed) {
        QStringList reasons;
        for (const auto &r : s.needs.reasons)
            reasons << qs(r.describe()).toHtmlEscaped();
        text += tr("<b>Compaction needed</b>: %1").arg(reasons.join(QStringLiteral("; ")));
    } else {
        text += tr("Compaction not needed yet");
    }
    if (s.autoCompressDue)
        text += QStringLiteral("<br>") + tr("Auto-compress is due (more than %1 messages)").arg(2 * s.config.keepRecent);
    m_statusText->setText(text);
    QStringList errors;
    for (const auto &e : s.errors)
        errors << qs(e);
    showError(errors.join(u'\n'));
    m_compress->setEnabled(m_transcript != nullptr && !m_transcript->messages.empty() && !m_job.isRunning());
}

void OperationsDialog::fillConfig(const ops::Config &c)
{
    m_filling = true;
    m_maxTurns->setValue(c.maxTurns);
    m_keepRecent->setValue(c.keepRecent);
    m_maxToolOutput->setValue(c.maxToolOutput);
    m_summaryMaxChars->setValue(c.summaryMaxChars);
    m_autoCompress->setChecked(c.autoCompress);
    m_importance->setValue(c.importanceThreshold);
    const int i = m_strategy->findData(qs(ops::effectiveStrategy(c)));
    m_strategy->setCurrentIndex(std::max(0, i));
    m_filling = false;
    strategyChanged();
    QString error;
    if (c.params.is_object() && !c.params.empty() && !m_params->setValues(c.params, &error))
        m_status.errors.push_back("config.json params: " + error.toStdString());
}

void OperationsDialog::strategyChanged()
{
    if (m_filling)
        return;
    std::vector<strategy::ParamSpec> specs;
    if (const strategy::Strategy *s = strategy::find(m_strategy->currentData().toString().toStdString()))
        for (const auto &spec : s->params())
            if (!isSeedField(spec.name))
                specs.push_back(spec);
    m_params->setSpecs(std::move(specs));
}

ops::Config OperationsDialog::formConfig() const
{
    ops::Config c;
    c.maxTurns = m_maxTurns->value();
    c.keepRecent = m_keepRecent->value();
    c.maxToolOutput = m_maxToolOutput->value();
    c.summaryMaxChars = m_summaryMaxChars->value();
    c.autoCompress = m_autoCompress->isChecked();
    c.importanceThreshold = m_importance->value();
    c.strategy = m_strategy->currentData().toString().toStdString();
    // Only what differs from the strategy's defaults, so the file stays short and new defaults apply.
    const nlohmann::json values = m_params->values();
    for (const auto &spec : m_params->specs())
        if (values.contains(spec.name) && values[spec.name] != spec.defaultValue)
            c.params[spec.name] = values[spec.name];
    return c;
}

bool OperationsDialog::saveConfig()
{
    std::string error;
    if (!m_store.saveConfig(formConfig(), &error)) {
        showError(tr("Not saved: %1").arg(qs(error)));
        return false;
    }
    refresh();
    return true;
}

ops::Events OperationsDialog::events()
{
    ops::Events e;
    e.onNeeded = [this](const analysis::NeedsCompaction &needs) {
        QStringList reasons;
        for (const auto &r : needs.reasons)
            reasons << qs(r.describe());
        Q_EMIT compactionNeeded(reasons.join(QStringLiteral("; ")));
    };
    e.onStart = [this](const std::string &name) { Q_EMIT compactionStarted(qs(name)); };
    e.onComplete = [this](const ops::Counts &before, const ops::Counts &after) {
        Q_EMIT compactionCompleted(qint64(before.messages), qint64(after.messages), before.tokens, after.tokens);
    };
    return e;
}

void OperationsDialog::checkNeeded()
{
    if (m_transcript)
        ops::checkNeeded(*m_transcript, m_options, events());
}

void OperationsDialog::compressNow()
{
    if (!m_transcript || m_job.isRunning())
        return;
    ops::CompressOptions o;
    o.analysis = m_options;
    o.pinned = m_pinned;
    o.exemptTools = m_exempt;
    o.events = events();
    if (!m_withModel->isChecked() || !m_gui.useModel) {
        finishCompress(ops::compressNow(*m_transcript, m_store, o));
        return;
    }
    // The worker's events reach the dialog on its thread, and only while it lives.
    QPointer<OperationsDialog> guard(this);
    auto post = [guard](std::function<void(OperationsDialog &)> f) {
        QMetaObject::invokeMethod(
            qApp,
            [guard, f = std::move(f)] {
                if (guard)
                    f(*guard);
            },
            Qt::QueuedConnection);
    };
    const ops::Events direct = o.events;
    o.events.onNeeded = [post, direct](const analysis::NeedsCompaction &needs) {
        post([direct, needs](OperationsDialog &) { direct.onNeeded(needs); });
    };
    o.events.onStart = [post, direct](const std::string &name) {
        post([direct, name](OperationsDialog &) { direct.onStart(name); });
    };
    o.events.onComplete = [post, direct](const ops::Counts &before, const ops::Counts &after) {
        post([direct, before, after](OperationsDialog &) { direct.onComplete(before, after); });
    };
    QString keyNote;
    const llm::SummarizerSettings model = withKey(m_gui, &keyNote);
    auto transcript = m_transcript;
    const ops::Store store = m_store;
    m_job.start(
        [transcript, store, o, model](JobControl &control) mutable {
            net::ModelSummarizer writer(model);
            writer.setCancelFlag(control.cancelFlag());
            o.summarizer = &writer;
            return ops::compressNow(*transcript, store, o);
        },
        [this](ops::CompressOutcome out) {
            setCompressing(false);
            finishCompress(out);
        });
    setCompressing(true);
    m_result->setText(tr("Compressing; %1 writes the summary (%2)\u2026").arg(describe(m_gui), keyNote));
}

void OperationsDialog::cancelCompress()
{
    if (!m_job.isRunning())
        return;
    m_job.cancel(); // the model call is aborted; nothing is applied or recorded
    setCompressing(false);
    m_result->setText(tr("Cancelled: nothing compressed"));
}

void OperationsDialog::setCompressing(bool on)
{
    m_compress->setEnabled(!on && m_transcript && !m_transcript->messages.empty());
    m_cancel->setVisible(on);
    m_withModel->setEnabled(!on && m_gui.useModel);
}

void OperationsDialog::finishCompress(const ops::CompressOutcome &out)
{
    if (!out.ok) {
        m_result->setText(tr("Not compressed"));
        showError(qs(out.error));
        return;
    }
    QString text = qs(out.text);
    if (!out.result->changed)
        text += QStringLiteral(" \u2014 ") + qs(out.result->note);
    m_result->setText(text);
    m_result->setToolTip(qs(out.result->note));
    refresh();
    if (!out.summaryError.empty())
        showError(tr("Summary not recorded: %1").arg(qs(out.summaryError)));
    Q_EMIT compressed(out.result);
}

namespace {

// "Written by the rules" / "Written by model:openai/gpt-4o-mini: 10,000 + 500 tokens, $0.0100".
QString writtenBy(const ops::SummaryRecord &r)
{
    if (r.summarizer.empty() || r.summarizer == "rules")
        return OperationsDialog::tr("Written by the rules");
    QString text = OperationsDialog::tr("Written by %1").arg(qs(r.summarizer).toHtmlEscaped());
    const QLocale loc;
    if (r.model.is_object() && r.model.value("inputTokens", nlohmann::json()).is_number())
        text += OperationsDialog::tr(": %1 + %2 tokens")
                    .arg(loc.toString(r.model["inputTokens"].get<qlonglong>()),
                         loc.toString(r.model.value("outputTokens", nlohmann::json(0)).get<qlonglong>()));
    if (r.model.is_object() && r.model.value("cost", nlohmann::json()).is_number())
        text += QStringLiteral(", $%1").arg(loc.toString(r.model["cost"].get<double>(), 'f', 4));
    return text;
}

} // namespace

void OperationsDialog::fillSummaries()
{
    m_summaries->clear();
    std::vector<ops::SummaryRecord> list;
    std::string error;
    if (!m_store.summaries(std::size_t(m_latest->value()), list, &error))
        return; // fillStatus shows the error
    const QLocale loc;
    for (const ops::SummaryRecord &r : list) {
        const QString content = qs(r.content);
        auto *item = new QTreeWidgetItem(m_summaries);
        const QDateTime when = QDateTime::fromString(qs(r.timestamp), Qt::ISODateWithMs);
        item->setText(0, when.isValid() ? QLocale().toString(when.toLocalTime(), QLocale::ShortFormat) : qs(r.timestamp));
        item->setToolTip(0, qs(r.timestamp));
        item->setText(1, qs(r.strategy));
        item->setText(2, QString::number(r.messagesCompacted));
        item->setText(3, QStringLiteral("%1 \u2192 %2").arg(loc.toString(r.tokensBefore), loc.toString(r.tokensAfter)));
        item->setText(4, content.section(u'\n', 0, 0).left(200));
        QString html = QStringLiteral("<p><b>%1</b> \u00b7 %2 \u00b7 ").arg(qs(r.strategy).toHtmlEscaped(), qs(r.timestamp))
                       + tr("turns %1\u2013%2, messages %3\u2013%4").arg(r.firstTurn).arg(r.lastTurn).arg(r.firstIndex).arg(r.lastIndex)
                       + QStringLiteral("<br>") + writtenBy(r) + QStringLiteral("</p><p>") + content.toHtmlEscaped().replace(u'\n', QStringLiteral("<br>"))
                       + QStringLiteral("</p>");
        if (!r.keyPoints.empty()) {
            html += QStringLiteral("<p><b>") + tr("Key points") + QStringLiteral("</b></p><ul>");
            for (const auto &p : r.keyPoints)
                html += QStringLiteral("<li>") + qs(p).toHtmlEscaped() + QStringLiteral("</li>");
            html += QStringLiteral("</ul>");
        }
        item->setData(0, DetailHtmlRole, html);
    }
    for (int c = 0; c < 4; ++c)
        m_summaries->resizeColumnToContents(c);
    if (m_summaries->topLevelItemCount() > 0)
        m_summaries->setCurrentItem(m_summaries->topLevelItem(0));
    else
        m_detail->clear();
}

} // namespace cl::gui
