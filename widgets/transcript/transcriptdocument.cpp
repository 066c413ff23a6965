// SPDX-License-Identifier: MIT
#include "widgets/transcript/transcriptdocument.h"
#include "widgets/models/qtext.h"
#include "widgets/models/filenames.h"

#include "core/io/export.h"
#include "core/tokens/estimator.h"

#include "core/io/writer.h"
#include "core/redact/redact.h"
#include "core/strategies/registry.h"
#include "core/util/json.h"

#include <QFile>
#include <QFileInfo>
#include <QUndoCommand>
#include <QUndoStack>

namespace cl::gui {

namespace {

// The one place that turns the working transcript into bytes for export, streamed into `out`. A
// Claude Code session is written as Claude Code writes its own compactions (core/io/export.h). Never
// throws: a writer's failure comes back as a result that is not ok.
WriteResult encodeForExport(const Transcript &t, const Transcript *original, Format target, ByteSink &out,
                            const nlohmann::json &origin = nlohmann::json::object())
{
    ExportOptions o;
    o.origin = origin;
    if (original)
        o.preTokens = tokens::totalEstimate(*original);
    return exportTranscript(t, target, o, out);
}

// The file's stamp when its bytes as read are still all there is; else a stamp no file has, so that
// saving over it is refused (it grew between the read and now).
FileStamp stampForLoaded(const Transcript *t, const QString &path)
{
    const std::optional<FileStamp> now = path.isEmpty() ? std::nullopt : stampOf(filenames::toBytes(path));
    if (!now || !t || !t->buffer || now->size != t->buffer->size())
        return FileStamp{t && t->buffer ? t->buffer->size() : 0, -1};
    return *now;
}

} // namespace

// One apply: swaps whole immutable transcripts, so undo/redo restore exactly.
class ApplyCommand : public QUndoCommand
{
public:
    ApplyCommand(TranscriptDocument *doc, std::shared_ptr<const Transcript> before, std::shared_ptr<const Transcript> after,
                 const QString &text, nlohmann::json step)
        : QUndoCommand(text)
        , m_doc(doc)
        , m_before(std::move(before))
        , m_after(std::move(after))
        , m_step(std::move(step))
    {
    }
    void undo() override { m_doc->setCurrent(m_before); }
    void redo() override { m_doc->setCurrent(m_after); }
    const nlohmann::json &step() const { return m_step; }

private:
    TranscriptDocument *m_doc;
    std::shared_ptr<const Transcript> m_before, m_after;
    nlohmann::json m_step; // {"strategy": name, "params": {...}}
};

TranscriptDocument::TranscriptDocument(QObject *parent)
    : QObject(parent)
    , m_undo(new QUndoStack(this))
    , m_backupRoot(filenames::fromBytes(backups::defaultRoot()))
{
    // Undo back to the loaded transcript after an export leaves the stack unclean but loses nothing.
    const auto announce = [this] {
        const std::pair<bool, bool> state{isModified(), isEdited()};
        if (state != m_announced) {
            m_announced = state;
            Q_EMIT modifiedChanged(state.first);
        }
    };
    connect(m_undo, &QUndoStack::cleanChanged, this, announce);
    connect(m_undo, &QUndoStack::indexChanged, this, announce);
}

TranscriptDocument::~TranscriptDocument() = default;

void TranscriptDocument::setSource(std::shared_ptr<const Transcript> transcript, const QString &path)
{
    const bool wasModified = isModified() || isEdited();
    m_undo->clear();
    m_original = std::move(transcript);
    m_path = !path.isEmpty() || !m_original ? path : filenames::fromBytes(m_original->path);
    m_exportNotes.clear();
    m_current = m_original;
    m_stamp = stampForLoaded(m_original.get(), m_path);
    m_announced = {false, false};
    if (wasModified)
        Q_EMIT modifiedChanged(false);
    Q_EMIT transcriptChanged();
}

void TranscriptDocument::clear()
{
    setSource(nullptr, {});
}

bool TranscriptDocument::isModified() const
{
    return isEdited() && !m_undo->isClean();
}

bool TranscriptDocument::hasHandEdits() const
{
    for (const nlohmann::json &step : appliedStrategies())
        if (json::str(step, "strategy") == "hand-edit")
            return true;
    return false;
}

void TranscriptDocument::setCurrent(std::shared_ptr<const Transcript> t)
{
    m_current = std::move(t);
    Q_EMIT transcriptChanged();
}

bool TranscriptDocument::apply(const strategy::Result &result, const QString &label, QString *error)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (!m_current)
        return fail(tr("no transcript loaded"));
    if (!result.changed)
        return fail(tr("the result changes nothing"));
    // A result computed on another transcript (before an earlier apply or undo) would index the
    // wrong messages.
    if (result.fates.size() != m_current->messages.size())
        return fail(tr("the preview was computed on another version of the transcript; preview again"));
    for (const auto &slot : result.slots)
        if (slot.origin >= static_cast<std::int32_t>(m_current->messages.size()) || (slot.origin < 0 && !slot.message))
            return fail(tr("the result does not match the transcript; preview again"));
    auto next = std::make_shared<const Transcript>(result.materialize(*m_current));
    QString text = label;
    if (text.isEmpty()) {
        const strategy::Strategy *s = strategy::find(result.strategy);
        text = tr("Apply %1").arg(s ? qs(s->title()) : qs(result.strategy));
    }
    m_undo->push(new ApplyCommand(this, m_current, std::move(next), text,
                                  nlohmann::json{{"strategy", result.strategy}, {"params", result.params.values}}));
    return true;
}

nlohmann::json TranscriptDocument::appliedStrategies() const
{
    nlohmann::json steps = nlohmann::json::array();
    for (int i = 0; i < m_undo->index(); ++i)
        if (const auto *c = dynamic_cast<const ApplyCommand *>(m_undo->command(i)))
            steps.push_back(c->step());
        else if (const QUndoCommand *macro = m_undo->command(i))
            for (int k = 0; k < macro->childCount(); ++k)
                if (const auto *child = dynamic_cast<const ApplyCommand *>(macro->child(k)))
                    steps.push_back(child->step());
    return steps;
}

std::vector<Format> TranscriptDocument::exportFormats(Format source)
{
    std::vector<Format> out;
    if (source != Format::Unknown)
        out.push_back(source);
    for (Format f : allFormats())
        if (isApiFormat(f) && f != source)
            out.push_back(f);
    return out;
}

bool TranscriptDocument::isInputPath(const QString &path) const
{
    if (m_path.isEmpty() || path.isEmpty())
        return false;
    const QFileInfo target(path), input(m_path);
    if (target.exists() && input.exists())
        return target.canonicalFilePath() == input.canonicalFilePath();
    return target.absoluteFilePath() == input.absoluteFilePath();
}

bool TranscriptDocument::exportTo(const QString &path, Format target, QString *error, bool confirmOverwrite,
                                  std::shared_ptr<const redact::Rules> redaction)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    m_exportNotes.clear();
    if (!m_current)
        return fail(tr("no transcript loaded"));
    if (path.isEmpty())
        return fail(tr("no file name given"));
    if (target == Format::Unknown)
        return fail(tr("no target format given"));
    if (redaction && isInputPath(path))
        return fail(tr("%1 is the loaded input file; a redacted copy goes to another file").arg(path));
    if (!confirmOverwrite && isInputPath(path))
        return fail(tr("%1 is the loaded input file; export to another file (or confirm overwriting it)").arg(path));
    // Over the loaded file: a backup first (its own format: the full save-in-place checks).
    if (isInputPath(path)) {
        if (target == format()) {
            QString backup;
            if (!saveInPlace(error, &backup))
                return false;
            Q_EMIT exported(path, target);
            return true;
        }
        const std::string local = filenames::toBytes(path);
        if (const std::string readOnly = whyNotWritable(local); !readOnly.empty())
            return fail(tr("not written: %1: %2").arg(path, qs(readOnly)));
        if (const auto agent = running::find(local))
            return fail(tr("not written: %1").arg(qs(running::refusal(*agent, "export again"))));
        std::string why;
        if (!backups::create(filenames::toBytes(m_backupRoot), local, nullptr, &why))
            return fail(tr("not written: no backup of %1 could be made: %2").arg(path, qs(why)));
    }
    // Written straight into the temporary file beside the target, renamed over it when complete. A
    // compaction written carries the strategies that made it (core/io/export.h).
    nlohmann::json origin = nlohmann::json::object();
    origin["strategies"] = appliedStrategies();
    WriteResult written;
    std::string why;
    const bool ok = writeFileAtomic(
        filenames::toBytes(QFileInfo(path).absoluteFilePath()), [&](int fd, std::string &reason) {
            ByteSink sink(fd);
            if (redaction) { // encoded in memory, then redacted as one file (stable placeholders)
                ByteSink memory;
                written = encodeForExport(*m_current, m_original.get(), target, memory, origin);
                if (written.ok) {
                    redact::Redactor redactor(redaction);
                    sink += redactor.fileBytes(memory.take());
                    written = finishWrite(std::move(written), sink);
                }
            } else {
                written = encodeForExport(*m_current, m_original.get(), target, sink, origin);
            }
            reason = written.error;
            return written.ok;
        },
        &why);
    for (const std::string &n : written.notes)
        m_exportNotes << qs(n);
    if (!ok)
        return fail(tr("cannot write %1: %2").arg(path, qs(why)));
    m_undo->setClean(); // exported: nothing applied is lost any more (the title drops its '*')
    Q_EMIT exported(path, target);
    return true;
}

bool TranscriptDocument::saveInPlace(QString *error, QString *backup, bool *changedOnDisk)
{
    m_exportNotes.clear();
    if (!m_current || m_path.isEmpty()) {
        if (error)
            *error = tr("no transcript loaded from a file");
        return false;
    }
    SaveInPlaceOptions o;
    o.backupRoot = filenames::toBytes(m_backupRoot);
    o.then = "Save";
    o.origin = {{"strategies", appliedStrategies()}};
    if (m_original)
        o.preTokens = tokens::totalEstimate(*m_original);
    const SaveInPlaceResult r = cl::saveInPlace(*m_current, filenames::toBytes(m_path), m_stamp, o);
    if (changedOnDisk)
        *changedOnDisk = r.changedOnDisk;
    for (const std::string &n : r.notes)
        m_exportNotes << qs(n);
    if (!r.ok) {
        if (error)
            *error = qs(r.error);
        return false;
    }
    if (backup)
        *backup = filenames::fromBytes(r.backup.path);
    if (const auto now = stampOf(filenames::toBytes(m_path)))
        m_stamp = *now;
    m_undo->setClean();
    return true;
}

} // namespace cl::gui
