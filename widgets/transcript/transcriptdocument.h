// SPDX-License-Identifier: MIT
#pragma once

// The document the strategy GUI edits: the loaded original, the working transcript (what applied
// strategies made of it) and the undo stack of those applies. Every apply is one undo command that
// swaps whole immutable transcripts, so undo and redo restore exactly what was there. Export writes
// a new file atomically and never the loaded input unless the caller confirmed it, and then only
// after a backup; saveInPlace() writes the working transcript over the loaded file with every check
// of core/io/saveinplace.h (unchanged on disk since it was loaded, same live context on reload,
// timestamped backup first).

#include "core/io/saveinplace.h"
#include "core/model/format.h"
#include "core/strategy/strategy.h"
#include "core/model/transcript.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <utility>
#include <vector>

class QUndoStack;

namespace cl::redact {
class Rules;
}

namespace cl::gui {

class TranscriptDocument : public QObject
{
    Q_OBJECT
public:
    explicit TranscriptDocument(QObject *parent = nullptr);
    ~TranscriptDocument() override;

    // A freshly loaded transcript: becomes both original and working copy; the undo stack is
    // cleared. path defaults to transcript->path.
    void setSource(std::shared_ptr<const Transcript> transcript, const QString &path = {});
    void clear();

    std::shared_ptr<const Transcript> original() const { return m_original; }
    std::shared_ptr<const Transcript> current() const { return m_current; }
    QString path() const { return m_path; }
    Format format() const { return m_original ? m_original->format : Format::Unknown; }
    QUndoStack *undoStack() const { return m_undo; }
    // The working transcript differs from the loaded one (an apply that was not undone)...
    bool isEdited() const { return m_current != m_original; }
    // ... and from what was last exported or saved: closing would lose it.
    bool isModified() const;
    // Whether any apply that made the working transcript was a hand edit (not a strategy).
    bool hasHandEdits() const;

    // Replaces the working transcript by result.materialize(current()) as one undo step. The result
    // must have been computed on current() (its fates cover exactly current()'s messages); an
    // unchanged or stale result is refused. label: the undo text ("Apply Tool-message trimming").
    bool apply(const cl::strategy::Result &result, const QString &label = {}, QString *error = nullptr);
    // The applies that made the working transcript, oldest first: [{"strategy": name, "params": {...}}]
    // (a saved compaction carries them, core/io/export.h; Re-apply runs them again).
    nlohmann::json appliedStrategies() const;

    // Formats the working transcript can be exported to: its own format, then every API format.
    static std::vector<Format> exportFormats(Format source);
    std::vector<Format> exportFormats() const { return exportFormats(format()); }

    // Writes current() as `target` to `path` atomically. Refused when `path` is the loaded input
    // file unless confirmOverwrite is set. Conversion notes (what the target cannot carry) are in
    // lastExportNotes(). With redaction rules, the bytes written have their secrets replaced by
    // placeholders (core/redact/redact.h); never over the input then.
    bool exportTo(const QString &path, Format target, QString *error = nullptr, bool confirmOverwrite = false,
                  std::shared_ptr<const redact::Rules> redaction = {});
    QStringList lastExportNotes() const { return m_exportNotes; }
    // True when `path` names the loaded input file (same file through links and relative paths).
    bool isInputPath(const QString &path) const;

    // Writes current() over path() in its own format (core/io/saveinplace.h). *backup: the copy of
    // what the file held; *changedOnDisk: refused because the file changed since it was loaded.
    bool saveInPlace(QString *error = nullptr, QString *backup = nullptr, bool *changedOnDisk = nullptr);
    // Where backups go (default backups::defaultRoot(); tests set their own).
    void setBackupRoot(const QString &root) { m_backupRoot = root; }
    QString backupRoot() const { return m_backupRoot; }
    // The file as it was when loaded: its size as read and its modification time.
    const FileStamp &loadedStamp() const { return m_stamp; }

Q_SIGNALS:
    void transcriptChanged();            // current() was replaced (apply, undo, redo, setSource, clear)
    void modifiedChanged(bool modified); // isModified() or isEdited() changed
    void exported(const QString &path, cl::Format format);

private:
    friend class ApplyCommand;
    void setCurrent(std::shared_ptr<const Transcript> t);

    std::shared_ptr<const Transcript> m_original;
    std::shared_ptr<const Transcript> m_current;
    QString m_path;
    QUndoStack *m_undo = nullptr;
    QStringList m_exportNotes;
    FileStamp m_stamp;
    std::pair<bool, bool> m_announced{false, false}; // isModified(), isEdited() as last announced
    QString m_backupRoot;
};

} // namespace cl::gui
