// SPDX-License-Identifier: MIT
#include "widgets/transcript/detailpane.h"

#include "widgets/transcript/contenthighlighter.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/models/transcriptmodel_text.h"
#include "widgets/style/theme.h"

#include "core/util/json.h"

#include <QCheckBox>
#include <QEvent>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace cl::gui {

using text::fromUtf8;

namespace {
constexpr qsizetype kMaxShownChars = 2'000'000;
}

DetailPane::DetailPane(QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_raw(new QCheckBox(tr("Raw JSON"), this))
    , m_edit(new QPlainTextEdit(this))
{
    m_title->setTextFormat(Qt::PlainText);
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // long titles must not widen the pane
    m_raw->setToolTip(tr("Show the message's source records as pretty-printed JSON"));
    m_edit->setReadOnly(true);
    m_edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_edit->setPlaceholderText(tr("Select a message or block to see it in full."));
    m_highlighter = new ContentHighlighter(m_edit->document());
    m_highlighter->setDark(theme::isDark(palette()));

    auto *top = new QHBoxLayout;
    top->addWidget(m_title, 1);
    top->addWidget(m_raw);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_edit, 1);

    connect(m_raw, &QCheckBox::toggled, this, &DetailPane::refresh);
}

void DetailPane::showRow(std::shared_ptr<const Transcript> transcript, int message, int block)
{
    m_transcript = std::move(transcript);
    m_message = message;
    m_block = block;
    refresh();
}

void DetailPane::clear()
{
    showRow(nullptr, -1, -1);
}

QString DetailPane::text() const { return m_edit->toPlainText(); }
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

void DetailPane::refresh()
{
    if (!m_transcript || m_message < 0 || std::size_t(m_message) >= m_transcript->messages.size()) {
        m_title->clear();
        m_edit->clear();
        return;
    }
    const Message &m = m_transcript->messages[std::size_t(m_message)];
    const Block *b = m_block >= 0 && std::size_t(m_block) < m.blocks.size() ? &m.blocks[std::size_t(m_block)] : nullptr;
    if (m_raw->isChecked()) {
        m_edit->setPlainText(TranscriptModel::rawJson(*m_transcript, m));
        m_highlighter->setContent({}, ContentHighlighter::Mode::Json);
        m_title->setText(tr("Message %1 · source records").arg(m_message));
        return;
    }
    render(m, b);
}

void DetailPane::render(const Message &m, const Block *b)
{
    QString body;
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
        case BlockType::ToolUse:
            body = fromUtf8(json::dump(b->input, 2));
            mode = ContentHighlighter::Mode::Json;
            break;
        case BlockType::ToolResult:
            body = fromUtf8(b->text);
            file = fileHint(*m_transcript, *b);
            mode = BuiltinHighlighter::guessMode(body);
            if (b->isError)
                what += tr(" · error");
            break;
        case BlockType::Image:
        case BlockType::Document:
            body = tr("%1, %2 bytes of base64 data").arg(fromUtf8(b->mediaType)).arg(qulonglong(b->dataSize));
            break;
        case BlockType::Raw:
            body = fromUtf8(b->text);
            mode = ContentHighlighter::Mode::Json;
            break;
        default:
            body = fromUtf8(b->text);
        }
    } else {
        what = text::roleLabel(m);
        for (const Block &blk : m.blocks) {
            body += u"── " + fromUtf8(blockTypeName(blk.type)) + u' ' + fromUtf8(blk.toolName) + u" ──\n";
            body += (blk.type == BlockType::ToolUse ? fromUtf8(json::dump(blk.input, 2)) : fromUtf8(blk.text)) + u"\n\n";
        }
        if (m.blocks.empty() && !m.meta.is_null()) {
            body = fromUtf8(json::dump(m.meta, 2));
            mode = ContentHighlighter::Mode::Json;
        }
    }
    if (body.size() > kMaxShownChars) {
        // A multi-megabyte tool output would stall layout and highlighting; the head tells enough.
        const qsizetype rest = body.size() - kMaxShownChars;
        body.truncate(kMaxShownChars);
        body += tr("\n… %L1 more characters not shown").arg(rest);
    }
    m_edit->setPlainText(body);
    m_highlighter->setContent(file, mode);
    QString title = tr("Message %1").arg(m_message);
    if (m_block >= 0)
        title += u'.' + QString::number(m_block);
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
