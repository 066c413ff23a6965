// SPDX-License-Identifier: MIT
#pragma once

#include "core/transcript.h"

#include <QAbstractItemModel>

#include <memory>

namespace cl::gui {

// Tree over a loaded transcript: top-level rows are messages, their children the content blocks.
// Internal id 0 marks a message row; a block row stores its message index + 1, so parent() is O(1).
class TranscriptModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Columns { Index, Time, Role, Preview, Tokens, Count };

    explicit TranscriptModel(QObject *parent = nullptr);
    ~TranscriptModel() override;

    void setTranscript(std::shared_ptr<const Transcript> transcript);
    const std::shared_ptr<const Transcript> &transcript() const { return m_transcript; }

    // Row of the message decoded from the given 1-based source line; invalid index if none.
    QModelIndex indexForSourceLine(std::uint32_t line) const;
    QModelIndex indexForMessage(int message, int block = -1) const;
    // The largest tool_result block (else the first block, else message 0): a row worth showing.
    QModelIndex representativeIndex() const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // One line of display text: newlines flattened, at most maxChars characters (… appended).
    static QString flattenPreview(std::string_view text, int maxChars = 240);
    // The message's source records, each pretty-printed (unparseable ones verbatim).
    static QString rawJson(const Transcript &t, const Message &m);

private:
    QVariant messageData(int row, int column, int role) const;
    QVariant blockData(int messageRow, int blockRow, int column, int role) const;

    std::shared_ptr<const Transcript> m_transcript;
    qint64 m_maxTokens = 0;
};

} // namespace cl::gui
