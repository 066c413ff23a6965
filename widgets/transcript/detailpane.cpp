// SPDX-License-Identifier: MIT
#include "widgets/transcript/detailpane.h"

#include "widgets/transcript/contenthighlighter.h"
#include "widgets/transcript/longlinetextview.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/models/transcriptmodel_text.h"
#include "widgets/style/theme.h"

#include "core/util/json.h"

#include <QCheckBox>
#include <QClipboard>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>
#include <vector>

namespace cl::gui {

using text::fromUtf8;

namespace {

void append(TextHead &out, const QString &s)
{
    const QByteArray bytes = s.toUtf8();
    out.append(std::string_view(bytes.constData(), std::size_t(bytes.size())));
}

// The text of a message or of one of its blocks, as the pane shows it.
void appendItem(TextHead &out, const Message &m, const Block *b)
{
    if (!b && m.blocks.size() == 1)
        b = &m.blocks.front(); // a one-block message reads the same as its block
    if (b) {
        switch (b->type) {
        case BlockType::ToolUse: out.append(json::dump(b->input, 2)); break;
        case BlockType::Image:
        case BlockType::Document:
            append(out, DetailPane::tr("%1, %2 bytes of base64 data").arg(fromUtf8(b->mediaType)).arg(qulonglong(b->dataSize)));
            break;
        default: out.append(b->text);
        }
        return;
    }
    for (const Block &blk : m.blocks) {
        out.append("── ");
        out.append(blockTypeName(blk.type));
        out.append(" ");
        out.append(blk.toolName);
        out.append(" ──\n");
        if (blk.type == BlockType::ToolUse)
            out.append(json::dump(blk.input, 2));
        else
            out.append(blk.text);
        out.append("\n\n");
    }
    if (m.blocks.empty() && !m.meta.is_null())
        out.append(json::dump(m.meta, 2));
}

// The message's source records, pretty-printed; a record too large to parse and indent quickly (or
// not JSON) as the file has it. Returns whether every record was pretty-printed.
// The records of `m`; with a tool block, the ones holding its id first (a Claude Code message of
// several lines would otherwise show the call far below its text). *blockFirst: whether it did.
bool appendRecords(TextHead &out, const Transcript &t, const Message &m, const Block *block = nullptr, bool *blockFirst = nullptr)
{
    bool pretty = true;
    bool first = true;
    std::vector<std::uint32_t> order(m.records.begin(), m.records.end());
    if (block && !block->toolId.empty() && t.buffer) {
        const auto holds = [&](std::uint32_t r) {
            return r < t.records.size() && t.recordBytes(t.records[r]).find(block->toolId) != std::string_view::npos;
        };
        const auto moved = std::stable_partition(order.begin(), order.end(), holds);
        if (blockFirst)
            *blockFirst = moved != order.begin() && order.size() > 1;
    }
    for (std::uint32_t r : order) {
        if (r >= t.records.size() || !t.buffer)
            continue;
        const std::string_view bytes = t.recordBytes(t.records[r]);
        if (!first)
            out.append("\n");
        first = false;
        if (bytes.size() > DetailPane::kMaxPrettyBytes) {
            out.append(bytes);
            pretty = false;
            continue;
        }
        json::json value;
        std::string error;
        if (json::parse(bytes, value, error) == json::ParseStatus::Failed) {
            out.append(bytes);
            continue;
        }
        out.append(json::dump(value, 2));
        out.append("\n");
    }
    return pretty;
}

} // namespace

DetailPane::DetailPane(QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_raw(new QCheckBox(tr("Raw JSON"), this))
    , m_edit(new LongLineTextView(this))
    , m_moreBar(new QWidget(this))
    , m_more(new QLabel(m_moreBar))
    , m_showMore(new QPushButton(tr("Show More"), m_moreBar))
{
    m_title->setTextFormat(Qt::PlainText);
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // long titles must not widen the pane
    m_raw->setToolTip(tr("Show the message's source records as pretty-printed JSON"));
    m_edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_edit->setPlaceholderText(tr("Select a message or block to see it in full."));
    m_highlighter = new ContentHighlighter(m_edit->document());
    m_highlighter->setDark(theme::isDark(palette()));

    // Under the text when it is not all shown: how much more, and ways to get all of it.
    m_more->setTextFormat(Qt::PlainText);
    auto *copyAll = new QPushButton(tr("Copy All"), m_moreBar);
    copyAll->setToolTip(tr("Copy the whole text, also what is not shown, to the clipboard"));
    auto *saveAll = new QPushButton(tr("Save As…"), m_moreBar);
    saveAll->setToolTip(tr("Save the whole text, also what is not shown, to a file"));
    auto *bar = new QHBoxLayout(m_moreBar);
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_more, 1);
    bar->addWidget(m_showMore);
    bar->addWidget(copyAll);
    bar->addWidget(saveAll);
    m_moreBar->setVisible(false);

    auto *top = new QHBoxLayout;
    top->addWidget(m_title, 1);
    top->addWidget(m_raw);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_moreBar);

    connect(m_raw, &QCheckBox::toggled, this, [this] {
        m_limit = kShownBytes;
        refresh();
    });
    connect(m_showMore, &QPushButton::clicked, this, &DetailPane::showMore);
    connect(copyAll, &QPushButton::clicked, this, &DetailPane::copyAll);
    connect(saveAll, &QPushButton::clicked, this, &DetailPane::saveDialog);
}

void DetailPane::showRow(std::shared_ptr<const Transcript> transcript, int message, int block)
{
    m_transcript = std::move(transcript);
    m_message = message;
    m_block = block;
    m_limit = kShownBytes;
    refresh();
}

void DetailPane::clear()
{
    showRow(nullptr, -1, -1);
}

QString DetailPane::text() const { return m_edit->text(); }
QString DetailPane::title() const { return m_title->text(); }
QString DetailPane::titleToolTip() const { return m_title->toolTip(); }
bool DetailPane::rawMode() const { return m_raw->isChecked(); }
void DetailPane::setRawMode(bool raw) { m_raw->setChecked(raw); }
bool DetailPane::highlightsDark() const { return m_highlighter->isDark(); }

QString DetailPane::fileHint(const Transcript &t, const Block &result)
{
    if (result.pairMessage < 0 || std::size_t(result.pairMessage) >= t.messages.size())
        return {};
    const Message &m = t.messages[std::size_t(result.pairMessage)];
    if (result.pairBlock < 0 || std::size_t(result.pairBlock) >= m.blocks.size())
        return {};
    const nlohmann::json &input = m.blocks[std::size_t(result.pairBlock)].input;
    for (const char *key : {"file_path", "path", "notebook_path", "filePath", "filename"}) {
        const std::string p = json::str(input, key);
        if (!p.empty())
            return fromUtf8(p);
    }
    return {};
}

std::string DetailPane::itemUtf8(std::size_t limit, unsigned long long *total) const
{
    TextHead out(limit);
    if (m_transcript && m_message >= 0 && std::size_t(m_message) < m_transcript->messages.size()) {
        const Message &m = m_transcript->messages[std::size_t(m_message)];
        if (m_raw->isChecked())
            appendRecords(out, *m_transcript, m, m_block >= 0 && std::size_t(m_block) < m.blocks.size() ? &m.blocks[std::size_t(m_block)] : nullptr);
        else
            appendItem(out, m, m_block >= 0 && std::size_t(m_block) < m.blocks.size() ? &m.blocks[std::size_t(m_block)] : nullptr);
    }
    if (total)
        *total = out.total;
    return std::move(out.head);
}

QString DetailPane::fullText() const
{
    const std::string all = itemUtf8(std::numeric_limits<std::size_t>::max(), nullptr);
    return fromUtf8(all);
}

QString DetailPane::moreText() const
{
    if (m_hiddenBytes == 0)
        return {};
    return tr("… %1 more not shown").arg(QLocale().formattedDataSize(qint64(m_hiddenBytes), 1, QLocale::DataSizeSIFormat));
}

void DetailPane::showMore()
{
    if (m_hiddenBytes == 0 || m_limit >= kMaxShownBytes)
        return;
    m_limit = std::min(m_limit * 8, kMaxShownBytes);
    refresh();
}

void DetailPane::copyAll() const
{
    QGuiApplication::clipboard()->setText(fullText());
}

bool DetailPane::saveAs(const QString &path, QString *error) const
{
    const std::string all = itemUtf8(std::numeric_limits<std::size_t>::max(), nullptr);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(all.data(), qint64(all.size())) != qint64(all.size()) || !file.commit()) {
        if (error)
            *error = file.errorString();
        return false;
    }
    return true;
}

void DetailPane::saveDialog()
{
    const QString suggestion = QStringLiteral("message-%1%2.%3")
                                   .arg(m_message)
                                   .arg(m_block >= 0 ? QString(u'.' + QString::number(m_block)) : QString())
                                   .arg(m_raw->isChecked() ? QStringLiteral("jsonl") : QStringLiteral("txt"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the whole text"), suggestion);
    if (path.isEmpty())
        return;
    QString why;
    if (!saveAs(path, &why))
        QMessageBox::warning(this, tr("Not saved"), tr("Could not write %1:\n%2").arg(path, why));
}

void DetailPane::showText(const std::string &head, unsigned long long total)
{
    m_edit->setText(fromUtf8(head));
    m_hiddenBytes = total - head.size();
    m_more->setText(moreText());
    m_showMore->setText(total <= kMaxShownBytes ? tr("Show All") : tr("Show More"));
    m_showMore->setEnabled(m_limit < kMaxShownBytes);
    m_showMore->setToolTip(tr("Show up to %1 of it here").arg(QLocale().formattedDataSize(qint64(std::min<unsigned long long>(total, std::min(m_limit * 8, kMaxShownBytes))), 1, QLocale::DataSizeSIFormat)));
    m_moreBar->setVisible(m_hiddenBytes > 0);
}

void DetailPane::refresh()
{
    if (!m_transcript || m_message < 0 || std::size_t(m_message) >= m_transcript->messages.size()) {
        m_title->clear();
        m_edit->setText({});
        m_hiddenBytes = 0;
        m_moreBar->setVisible(false);
        return;
    }
    const Message &m = m_transcript->messages[std::size_t(m_message)];
    const Block *b = m_block >= 0 && std::size_t(m_block) < m.blocks.size() ? &m.blocks[std::size_t(m_block)] : nullptr;
    if (m_raw->isChecked()) {
        TextHead out(m_limit);
        bool blockFirst = false;
        const bool pretty = appendRecords(out, *m_transcript, m, b, &blockFirst);
        m_highlighter->setContent({}, ContentHighlighter::Mode::Plain); // before the text: highlight once
        showText(out.head, out.total);
        m_highlighter->setContent({}, m_edit->insertedBreaks() ? ContentHighlighter::Mode::Plain : ContentHighlighter::Mode::Json);
        m_title->setText((pretty ? tr("Message %1 · source records").arg(m_message + 1)
                                 : tr("Message %1 · source records, as in the file (too large to indent)").arg(m_message + 1))
                         + (blockFirst ? tr(", this block's first") : QString()));
        m_title->setToolTip(m_title->text());
        return;
    }
    render(m, b);
}

void DetailPane::render(const Message &m, const Block *b)
{
    TextHead out(m_limit);
    appendItem(out, m, b);
    QString file;
    QString what;
    auto mode = ContentHighlighter::Mode::Plain;
    if (!b && m.blocks.size() == 1)
        b = &m.blocks.front(); // a one-block message reads the same as its block
    if (b) {
        what = fromUtf8(blockTypeName(b->type));
        if (!b->toolName.empty())
            what += u" · " + fromUtf8(b->toolName);
        switch (b->type) {
        case BlockType::ToolUse: mode = ContentHighlighter::Mode::Json; break;
        case BlockType::ToolResult:
            file = fileHint(*m_transcript, *b);
            mode = BuiltinHighlighter::guessMode(fromUtf8(std::string_view(out.head).substr(0, 16384)));
            if (b->isError)
                what += tr(" · error");
            break;
        case BlockType::Raw: mode = ContentHighlighter::Mode::Json; break;
        default: break;
        }
    } else {
        what = text::roleLabel(m);
        if (m.blocks.empty() && !m.meta.is_null())
            mode = ContentHighlighter::Mode::Json;
    }
    m_highlighter->setContent({}, ContentHighlighter::Mode::Plain); // before the text: highlight once
    showText(out.head, out.total);
    // Lines broken on screen are data (minified code, base64, hex): nothing to highlight, and a
    // highlighter that reads one row at a time would misread them.
    if (m_edit->insertedBreaks())
        m_highlighter->setContent({}, ContentHighlighter::Mode::Plain);
    else
        m_highlighter->setContent(file, mode);
    // A subagent's message says whose it is (its number is in the subagent's own conversation).
    QString title = m.sidechain && !m.agentId.empty() ? tr("Subagent %1 · message %2").arg(text::fromUtf8(m.agentId)).arg(m_message + 1)
                                                      : tr("Message %1").arg(m_message + 1);
    if (m_block >= 0)
        title += u'.' + QString::number(m_block + 1);
    title += u" · " + what;
    const QString shortTitle = file.isEmpty() ? title : title + u" · " + QFileInfo(file).fileName();
    if (!file.isEmpty())
        title += u" · " + file;
    // The header is narrow; the full path lives in the tooltip.
    m_title->setText(shortTitle + tr(" · as %1").arg(m_highlighter->description()));
    m_title->setToolTip(title);
}

void DetailPane::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
        m_highlighter->setDark(theme::isDark(palette()));
    QWidget::changeEvent(event);
}

} // namespace cl::gui
