// SPDX-License-Identifier: MIT
#include "widgets/strategy/strategypanel.h"
#include "widgets/models/qtext.h"

#include "widgets/strategy/paramform.h"
#include "widgets/models/strategylabels.h"
#include "widgets/strategy/strategycombo.h"
#include "core/strategies/registry.h"
#include "widgets/models/roles.h"
#include "net/modelsummarizer.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QApplication>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QTextBrowser>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>

namespace cl::gui {

namespace {

// "3, 7-9" -> {3, 7, 8, 9}; anything unreadable is skipped.
std::vector<std::size_t> parseIndices(const QString &text)
{
    std::vector<std::size_t> out;
    static const QRegularExpression sep(QStringLiteral("[,;\\s]+"));
    const QStringList parts = text.split(sep, Qt::SkipEmptyParts);
    for (const QString &part : parts) {
        const int dash = part.indexOf(QLatin1Char('-'));
        bool ok1 = false, ok2 = false;
        const qulonglong a = (dash < 0 ? part : part.left(dash)).toULongLong(&ok1);
        const qulonglong b = dash < 0 ? a : part.mid(dash + 1).toULongLong(&ok2);
        if (!ok1 || (dash >= 0 && !ok2) || b < a || b - a > 1000000)
            continue;
        for (qulonglong i = a; i <= b; ++i)
            out.push_back(static_cast<std::size_t>(i));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Consecutive indices written as ranges, so a big selection stays readable.
QString formatIndices(const std::vector<std::size_t> &indices)
{
    QStringList parts;
    for (std::size_t k = 0; k < indices.size();) {
        std::size_t e = k;
        while (e + 1 < indices.size() && indices[e + 1] == indices[e] + 1)
            ++e;
        parts << (e > k + 1 ? QStringLiteral("%1-%2").arg(indices[k]).arg(indices[e]) : QString::number(indices[k]));
        if (e == k + 1)
            parts << QString::number(indices[e]);
        k = e + 1;
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace

StrategyPanel::StrategyPanel(QWidget *parent)
    : QWidget(parent)
{
    qRegisterMetaType<std::shared_ptr<const strategy::Result>>();
    auto *layout = new QVBoxLayout(this);

    m_combo = new QComboBox(this);
    m_combo->setObjectName(QStringLiteral("strategyCombo"));
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_combo->setMinimumContentsLength(20);
    layout->addWidget(m_combo);

    m_description = new QLabel(this);
    m_description->setWordWrap(true);
    m_description->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_description);

    auto *paramsBox = new QGroupBox(tr("Parameters"), this);
    auto *paramsLayout = new QVBoxLayout(paramsBox);
    m_form = new ParamForm(paramsBox);
    auto *scroll = new QScrollArea(paramsBox);
    scroll->setWidget(m_form);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    paramsLayout->addWidget(scroll);
    layout->addWidget(paramsBox, 1);

    auto *guards = new QGroupBox(tr("Protected"), this);
    auto *guardForm = new QFormLayout(guards);
    m_pinned = new QLineEdit(guards);
    m_pinned->setObjectName(QStringLiteral("pinned"));
    m_pinned->setPlaceholderText(tr("message numbers, e.g. 3, 7-9"));
    m_pinned->setToolTip(tr("Messages no strategy may remove or edit (the selected rows can be pinned from the transcript view)"));
    m_pinned->setClearButtonEnabled(true);
    guardForm->addRow(tr("Pinned"), m_pinned);
    m_exempt = new QLineEdit(guards);
    m_exempt->setObjectName(QStringLiteral("exemptTools"));
    m_exempt->setPlaceholderText(tr("tool names, e.g. Read, TodoWrite"));
    m_exempt->setToolTip(tr("Calls and results of these tools are never removed or cleared"));
    m_exempt->setClearButtonEnabled(true);
    guardForm->addRow(tr("Exempt tools"), m_exempt);
    layout->addWidget(guards);

    auto *summaries = new QHBoxLayout;
    m_summaryMode = new QLabel(this);
    m_summaryMode->setObjectName(QStringLiteral("summaryMode"));
    m_summaryMode->setWordWrap(true); // the dock keeps its width
    auto *summarySettings = new QPushButton(tr("Summaries…"), this);
    summarySettings->setToolTip(tr("Who writes the summaries of the strategies that summarize: the rules (offline) or a model"));
    m_keepFacts = new QCheckBox(tr("Keep dropped facts"), this);
    m_keepFacts->setObjectName(QStringLiteral("keepDroppedFacts"));
    m_keepFacts->setToolTip(tr("Append the facts of the replaced history a model's summary does not mention (user requests, "
                               "file paths, commands, errors) as a list, so that none is lost silently"));
    layout->addWidget(m_summaryMode);
    summaries->addWidget(m_keepFacts);
    summaries->addStretch(1);
    summaries->addWidget(summarySettings);
    layout->addLayout(summaries);
    connect(m_keepFacts, &QCheckBox::toggled, this, [this](bool on) {
        if (m_gui.settings.keepDroppedFacts == on)
            return;
        m_gui.settings.keepDroppedFacts = on;
        saveSummarizer(m_gui);
        Q_EMIT modelSummarizerChanged();
        if (m_preview)
            m_status->setText(tr("Preview again to see the summary with the dropped facts %1.").arg(on ? tr("appended") : tr("left out")));
    });
    connect(summarySettings, &QPushButton::clicked, this, &StrategyPanel::editSummarizer);

    auto *buttons = new QHBoxLayout;
    m_previewButton = new QPushButton(tr("Preview"), this);
    m_previewButton->setToolTip(tr("Run the strategy on the working transcript without changing it (Ctrl+P)"));
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setVisible(false);
    m_applyButton = new QPushButton(tr("Apply"), this);
    m_applyButton->setToolTip(tr("Replace the working transcript by the previewed result; undo restores it (Ctrl+Shift+Return)"));
    buttons->addWidget(m_previewButton);
    buttons->addWidget(m_cancelButton);
    buttons->addStretch(1);
    buttons->addWidget(m_applyButton);
    layout->addLayout(buttons);

    m_busyBar = new QProgressBar(this);
    m_busyBar->setRange(0, 0); // indeterminate: strategies report no progress
    m_busyBar->setMaximumHeight(6);
    m_busyBar->setTextVisible(false);
    m_busyBar->setVisible(false);
    layout->addWidget(m_busyBar);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("status"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    m_stream = new QPlainTextEdit(this);
    m_stream->setObjectName(QStringLiteral("summaryStream"));
    m_stream->setReadOnly(true);
    m_stream->setPlaceholderText(tr("The model's answer appears here as it is written."));
    m_stream->setMaximumHeight(220);
    m_stream->setVisible(false);
    layout->addWidget(m_stream);
    m_report = new QTextBrowser(this);
    m_report->setObjectName(QStringLiteral("summaryReport"));
    m_report->setMaximumHeight(200);
    m_report->setFrameShape(QFrame::NoFrame);
    m_report->setVisible(false);
    layout->addWidget(m_report);

    connect(m_combo, &QComboBox::currentIndexChanged, this, &StrategyPanel::strategyChosen);
    connect(m_previewButton, &QPushButton::clicked, this, &StrategyPanel::runPreview);
    connect(m_cancelButton, &QPushButton::clicked, this, &StrategyPanel::cancelPreview);
    connect(m_applyButton, &QPushButton::clicked, this, &StrategyPanel::requestApply);
    connect(m_form, &ParamForm::valuesChanged, this, [this] {
        if (m_preview)
            m_status->setText(tr("Parameters changed since the preview: preview again to see their effect."));
    });

    setModelSummarizer(loadSummarizer());
    reloadStrategies();
}

StrategyPanel::~StrategyPanel() = default;

void StrategyPanel::setModelSummarizer(const GuiSummarizer &s)
{
    m_gui = s;
    m_summaryMode->setText(tr("Summaries: %1").arg(describe(s)));
    {
        const QSignalBlocker block(m_keepFacts);
        m_keepFacts->setChecked(s.settings.keepDroppedFacts);
    }
    m_keepFacts->setVisible(s.useModel);
    clearPreview();
    Q_EMIT modelSummarizerChanged();
}

void StrategyPanel::editSummarizer()
{
    SummarizerDialog dialog(m_gui, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    saveSummarizer(dialog.value());
    setModelSummarizer(dialog.value());
}

void StrategyPanel::appendStream(quint64 run, const QString &text)
{
    if (run != m_run)
        return; // a preview that was replaced or cancelled
    ++m_pieces;
    m_stream->moveCursor(QTextCursor::End);
    m_stream->insertPlainText(text);
    m_stream->ensureCursorVisible();
}

void StrategyPanel::showSummaryReport(const nlohmann::json &summaries)
{
    if (!summaries.is_array() || summaries.empty()) {
        m_report->setVisible(false);
        return;
    }
    QString html;
    for (const auto &r : summaries) {
        html += tr("<b>Model summary</b> %1 %2 (%3): ")
                    .arg(QString::fromStdString(r.value("provider", std::string())).toHtmlEscaped(),
                         QString::fromStdString(r.value("model", std::string())).toHtmlEscaped(),
                         QString::fromStdString(r.value("preset", std::string())).toHtmlEscaped());
        if (r["error"].is_string()) {
            html += tr("<span style='color:#d03030'>rejected: %1</span><br>").arg(QString::fromStdString(r["error"].get<std::string>()).toHtmlEscaped());
            continue;
        }
        html += tr("%1 in / %2 out tokens").arg(r.value("inputTokens", 0)).arg(r.value("outputTokens", 0));
        html += r["cost"].is_number() ? tr(", $%1").arg(r["cost"].get<double>(), 0, 'f', 4) : tr(", cost unknown");
        if (r.value("cached", false))
            html += tr(" (from the cache)");
        if (r.value("verified", false))
            html += tr(", verified");
        html += QStringLiteral("<br>");
        if (!r["missingSections"].empty())
            html += tr("Missing sections: %1<br>").arg(QString::fromStdString(r["missingSections"].dump()).toHtmlEscaped());
        if (!r["emptySections"].empty())
            html += tr("Empty sections: %1<br>").arg(QString::fromStdString(r["emptySections"].dump()).toHtmlEscaped());
        const auto &dropped = r["droppedFacts"];
        html += tr("Facts kept %1, dropped %2%3").arg(r.value("keptFacts", 0)).arg(dropped.size()).arg(r.value("droppedFactsAppended", false) ? tr(" (appended to the summary)") : QString());
        if (!dropped.empty()) {
            html += QStringLiteral("<ul style='margin:0'>");
            for (const auto &f : dropped)
                html += QStringLiteral("<li>%1: %2</li>")
                            .arg(QString::fromStdString(f.value("kind", std::string())),
                                 QString::fromStdString(f.value("text", std::string())).toHtmlEscaped());
            html += QStringLiteral("</ul>");
        }
    }
    m_report->setHtml(html);
    m_report->setVisible(true);
}

void StrategyPanel::reloadStrategies()
{
    const QString keep = currentStrategy();
    QSignalBlocker block(m_combo);
    fillStrategyCombo(m_combo); // clears it first
    int index = keep.isEmpty() ? -1 : m_combo->findData(keep);
    for (int i = 0; index < 0 && i < m_combo->count(); ++i)
        if (!m_combo->itemData(i).toString().isEmpty())
            index = i;
    m_combo->setCurrentIndex(index);
    block.unblock();
    strategyChosen();
}

QString StrategyPanel::currentStrategy() const
{
    return m_combo->currentData().toString();
}

bool StrategyPanel::setCurrentStrategy(const QString &name)
{
    const int i = m_combo->findData(name);
    if (i < 0)
        return false;
    m_combo->setCurrentIndex(i);
    return true;
}

void StrategyPanel::strategyChosen()
{
    const strategy::Strategy *s = strategy::find(currentStrategy().toStdString());
    if (!s) {
        m_description->setText(tr("No strategy is registered."));
        m_form->setSpecs({});
    } else {
        m_description->setText(QStringLiteral("<b>%1</b> <small>(%2, %3)</small><br>%4")
                                   .arg(qs(s->title()).toHtmlEscaped(), strategyKind(*s).toHtmlEscaped(),
                                        qs(s->name()).toHtmlEscaped(), qs(s->description()).toHtmlEscaped()));
        m_form->setSpecs(s->params());
    }
    clearPreview();
}

void StrategyPanel::setTranscript(std::shared_ptr<const Transcript> transcript, std::shared_ptr<const analysis::Analysis> analysis,
                                  std::shared_ptr<strategy::TranscriptTables> tables)
{
    m_transcript = std::move(transcript);
    m_analysis = std::move(analysis);
    m_tables = tables ? std::move(tables) : std::make_shared<strategy::TranscriptTables>();
    m_job.invalidate(); // a running preview was for the old transcript
    setBusy(false);
    clearPreview();
}

void StrategyPanel::setAnalysisOptions(const analysis::AnalysisOptions &options)
{
    m_options = options;
    m_analysis.reset(); // computed with other options
    clearPreview();
}

void StrategyPanel::setSummarizer(const strategy::Summarizer *summarizer)
{
    m_summarizer = summarizer;
    clearPreview();
}

void StrategyPanel::setPinned(const std::vector<std::size_t> &indices)
{
    std::vector<std::size_t> sorted = indices;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    m_pinned->setText(formatIndices(sorted));
}

std::vector<std::size_t> StrategyPanel::pinned() const
{
    return parseIndices(m_pinned->text());
}

void StrategyPanel::setExemptTools(const QStringList &tools)
{
    m_exempt->setText(tools.join(QStringLiteral(", ")));
}

QStringList StrategyPanel::exemptTools() const
{
    QStringList out;
    const QStringList parts = m_exempt->text().split(QLatin1Char(','));
    for (const QString &p : parts)
        if (!p.trimmed().isEmpty())
            out << p.trimmed();
    return out;
}

void StrategyPanel::clearPreview()
{
    const bool had = m_preview != nullptr;
    m_preview.reset();
    m_previewBasis.reset();
    if (!m_busy) {
        m_status->clear();
        m_report->setVisible(false);
    }
    updateButtons();
    if (had)
        Q_EMIT previewCleared();
}

void StrategyPanel::setBusy(bool busy)
{
    if (m_busy == busy)
        return;
    m_busy = busy;
    m_busyBar->setVisible(busy);
    m_cancelButton->setVisible(busy);
    updateButtons();
    Q_EMIT busyChanged(busy);
}

void StrategyPanel::updateButtons()
{
    const bool ready = m_transcript && strategy::find(currentStrategy().toStdString());
    m_previewButton->setEnabled(ready && !m_busy);
    m_applyButton->setEnabled(!m_busy && m_preview && m_preview->changed && m_previewBasis == m_transcript);
}

void StrategyPanel::runPreview()
{
    const strategy::Strategy *s = strategy::find(currentStrategy().toStdString());
    if (!s || !m_transcript)
        return;
    clearPreview();
    auto transcript = m_transcript;
    auto analysis = m_analysis;
    auto tables = m_tables;
    auto options = m_options;
    auto pinned = this->pinned();
    std::vector<std::string> exempt;
    for (const QString &tool : exemptTools())
        exempt.push_back(tool.toStdString());
    const strategy::Summarizer *summarizer = m_summarizer;
    const nlohmann::json params = m_form->values();
    // A model writes the summaries when no summarizer was set and the settings say so.
    std::optional<llm::SummarizerSettings> model;
    QString keyNote;
    if (!summarizer && m_gui.useModel)
        model = withKey(m_gui, &keyNote);
    const quint64 run = ++m_run;
    m_pieces = 0;
    m_stream->clear();
    m_stream->setVisible(model.has_value());
    m_report->setVisible(false);
    QPointer<StrategyPanel> guard(this);

    m_job.start( // a running preview is stale now
        [s, transcript, analysis, tables, options, pinned, exempt, summarizer, params, model, guard, run](JobControl &control) {
            strategy::Input in(*transcript, analysis, options);
            in.setTables(tables);
            in.pinned = pinned;
            in.exemptTools = exempt;
            in.summarizer = summarizer;
            std::unique_ptr<net::ModelSummarizer> writer;
            if (model) {
                writer = std::make_unique<net::ModelSummarizer>(*model);
                writer->setCancelFlag(control.cancelFlag());
                writer->setOnDelta([guard, run](const std::string &delta) {
                    QMetaObject::invokeMethod(
                        qApp,
                        [guard, run, text = QString::fromStdString(delta)] {
                            if (guard)
                                guard->appendStream(run, text);
                        },
                        Qt::QueuedConnection);
                });
                in.summarizer = writer.get();
            }
            auto result = std::make_shared<const strategy::Result>(strategy::run(*s, in, params));
            return Outcome{std::move(result), in.sharedAnalysis(), writer ? writer->reportJson() : nlohmann::json()};
        },
        [this, transcript](Outcome out) { // not cancelled, re-run, nor the transcript changed meanwhile
            setBusy(false);
            if (transcript == m_transcript)
                m_analysis = out.analysis; // the next strategy on this transcript reuses it
            m_preview = out.result;
            m_previewBasis = transcript;
            m_status->setText(out.result->changed ? qs(out.result->note) : tr("No change: %1").arg(qs(out.result->note)));
            showSummaryReport(out.summaries);
            updateButtons();
            Q_EMIT previewReady(out.result);
        });
    setBusy(true);
    m_status->setText(model ? tr("Computing %1; a model writes the summary (%2)…").arg(qs(s->title()), keyNote)
                            : tr("Computing %1…").arg(qs(s->title())));
    Q_EMIT previewStarted();
}

void StrategyPanel::cancelPreview()
{
    if (!m_busy)
        return;
    m_job.cancel(); // sets the flag a model call polls: the request is aborted
    ++m_run;        // what is still on its way to the stream is dropped
    setBusy(false);
    m_status->setText(tr("Preview cancelled."));
    if (m_stream->isVisible())
        m_stream->appendPlainText(tr("[cancelled]"));
}

void StrategyPanel::requestApply()
{
    if (!m_preview || !m_preview->changed || m_previewBasis != m_transcript || m_busy)
        return;
    const strategy::Strategy *s = strategy::find(m_preview->strategy);
    const QString label = tr("Apply %1").arg(s ? qs(s->title()) : qs(m_preview->strategy));
    Q_EMIT applyRequested(m_preview, label);
}

} // namespace cl::gui
