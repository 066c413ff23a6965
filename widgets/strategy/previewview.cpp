// SPDX-License-Identifier: MIT
#include "widgets/strategy/previewview.h"
#include "widgets/models/qtext.h"

#include "widgets/models/fatecolors.h"
#include "widgets/strategy/changestrip.h"
#include "widgets/models/resultmodel.h"
#include "widgets/style/theme.h"
#include "widgets/transcript/longlinetextview.h"
#include "core/strategies/registry.h"

#include <QAction>
#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTextDocument>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace cl::gui {

using strategy::Fate;

namespace {

constexpr int kTooltipViolations = 30; // a tooltip with hundreds of lines is useless; Details has them all

QString percent(double share)
{
    return QStringLiteral("%1 %").arg(share * 100.0, 0, 'f', 1);
}

QTreeView *makeTree(QWidget *parent, ResultModel *model)
{
    auto *view = new QTreeView(parent);
    view->setModel(model);
    view->setRootIsDecorated(false);
    view->setUniformRowHeights(true);
    view->setItemsExpandable(false);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setTextElideMode(Qt::ElideRight);
    view->setAllColumnsShowFocus(true);
    QHeaderView *h = view->header();
    h->setStretchLastSection(false);
    h->setSectionResizeMode(ResultModel::PreviewColumn, QHeaderView::Stretch);
    h->resizeSection(ResultModel::IndexColumn, 56);
    h->resizeSection(ResultModel::RoleColumn, 110);
    h->resizeSection(ResultModel::TokensColumn, 64);
    h->resizeSection(ResultModel::FateColumn, 110);
    return view;
}

QPlainTextEdit *makeText(QWidget *parent)
{
    auto *text = new QPlainTextEdit(parent);
    text->setReadOnly(true);
    text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    return text;
}

} // namespace

PreviewView::PreviewView(QWidget *parent)
    : QWidget(parent)
    , m_leftModel(new ResultModel(ResultModel::Side::Original, this))
    , m_rightModel(new ResultModel(ResultModel::Side::Result, this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto *headerRow = new QHBoxLayout;
    m_stats = new QLabel(this);
    m_stats->setObjectName(QStringLiteral("stats"));
    m_stats->setTextFormat(Qt::RichText);
    m_stats->setWordWrap(true);
    m_stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
    headerRow->addWidget(m_stats, 1);
    m_detailsButton = new QToolButton(this);
    m_detailsButton->setText(tr("Details"));
    m_detailsButton->setCheckable(true);
    m_detailsButton->setToolTip(tr("The strategy's log and the validity violations"));
    // Where the changes are: previous / next (F8), "change k of n".
    m_previousButton = new QToolButton(this);
    m_previousButton->setObjectName(QStringLiteral("previousChange"));
    m_previousButton->setArrowType(Qt::UpArrow);
    m_previousButton->setToolTip(tr("Previous change (Shift+F8)"));
    m_nextButton = new QToolButton(this);
    m_nextButton->setObjectName(QStringLiteral("nextChange"));
    m_nextButton->setArrowType(Qt::DownArrow);
    m_nextButton->setToolTip(tr("Next change (F8)"));
    m_changeLabel = new QLabel(this);
    m_changeLabel->setObjectName(QStringLiteral("changeLabel"));
    m_changeLabel->setMinimumWidth(m_changeLabel->fontMetrics().horizontalAdvance(tr("change 8888 of 8888")));
    headerRow->addWidget(m_changeLabel, 0, Qt::AlignTop);
    headerRow->addWidget(m_previousButton, 0, Qt::AlignTop);
    headerRow->addWidget(m_nextButton, 0, Qt::AlignTop);
    auto *next = new QAction(tr("Next Change"), this);
    next->setShortcut(QKeySequence(Qt::Key_F8));
    next->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    auto *previous = new QAction(tr("Previous Change"), this);
    previous->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8));
    previous->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(next);
    addAction(previous);
    connect(next, &QAction::triggered, this, &PreviewView::nextChange);
    connect(previous, &QAction::triggered, this, &PreviewView::previousChange);
    connect(m_nextButton, &QToolButton::clicked, this, &PreviewView::nextChange);
    connect(m_previousButton, &QToolButton::clicked, this, &PreviewView::previousChange);
    // Progress, hook and other event lines folded into their message, as in the transcript; remembered.
    m_foldEvents = new QCheckBox(tr("Fold events"), this);
    m_foldEvents->setObjectName(QStringLiteral("foldEvents"));
    m_foldEvents->setToolTip(tr("Hide the unchanged progress, hook and metadata lines; their message says how many"));
    m_foldEvents->setChecked(QSettings().value(QStringLiteral("preview/foldEvents"), true).toBool());
    connect(m_foldEvents, &QCheckBox::toggled, this, [this](bool fold) {
        QSettings().setValue(QStringLiteral("preview/foldEvents"), fold);
        applyFolds();
        updateChanges();
    });
    headerRow->addWidget(m_foldEvents, 0, Qt::AlignTop);
    headerRow->addWidget(m_detailsButton, 0, Qt::AlignTop);
    layout->addLayout(headerRow);
    m_fates = new QLabel(this);
    m_fates->setTextFormat(Qt::RichText);
    m_fates->setWordWrap(true);
    layout->addWidget(m_fates);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_note);
    m_details = makeText(this);
    m_details->setObjectName(QStringLiteral("details"));
    m_details->setMaximumHeight(160);
    m_details->setVisible(false);
    layout->addWidget(m_details);

    auto *vertical = new QSplitter(Qt::Vertical, this);
    auto *sides = new QSplitter(Qt::Horizontal, vertical);
    // The original with the change strip beside its scroll bar.
    auto *leftSide = new QWidget(sides);
    auto *leftRow = new QHBoxLayout(leftSide);
    leftRow->setContentsMargins(0, 0, 0, 0);
    leftRow->setSpacing(1);
    m_left = makeTree(leftSide, m_leftModel);
    m_left->setObjectName(QStringLiteral("originalView"));
    m_strip = new ChangeStrip(leftSide);
    leftRow->addWidget(m_left, 1);
    leftRow->addWidget(m_strip);
    connect(m_strip, &ChangeStrip::rowClicked, this, &PreviewView::selectOriginal);
    m_right = makeTree(sides, m_rightModel);
    m_right->setObjectName(QStringLiteral("resultView"));
    auto *texts = new QSplitter(Qt::Horizontal, vertical);
    m_leftText = new LongLineTextView(texts);
    m_rightText = new LongLineTextView(texts);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 1);
    layout->addWidget(vertical, 1);
    m_sync = new QLabel(this);
    m_sync->setObjectName(QStringLiteral("syncMessage"));
    layout->addWidget(m_sync);

    connect(m_detailsButton, &QToolButton::toggled, this, &PreviewView::setDetailsVisible);
    connect(m_left->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
        currentChanged(true, current);
        updateChangeLabel();
    });
    connect(m_right->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { currentChanged(false, current); });
    connect(m_left->verticalScrollBar(), &QScrollBar::valueChanged, this, [this] { scrolled(true); });
    connect(m_right->verticalScrollBar(), &QScrollBar::valueChanged, this, [this] { scrolled(false); });
    connect(m_left, &QTreeView::doubleClicked, this, [this](const QModelIndex &i) { Q_EMIT messageActivated(i.row()); });
    connect(m_right, &QTreeView::doubleClicked, this,
            [this](const QModelIndex &i) { Q_EMIT messageActivated(m_rightModel->partnerRow(i.row())); });

    updatePalette();
    updateHeader();
}

PreviewView::~PreviewView() = default;

void PreviewView::setResult(std::shared_ptr<const Transcript> original, std::shared_ptr<const strategy::Result> result)
{
    m_original = std::move(original);
    m_result = m_original ? std::move(result) : nullptr;
    m_leftModel->setResult(m_original, m_result);
    m_rightModel->setResult(m_original, m_result);
    m_leftText->setText({});
    m_rightText->setText({});
    m_sync->clear();
    applyFolds();
    updateHeader();
    updateChanges();
    if (!m_changes.empty()) // open where the strategy did something, not at row 0
        selectOriginal(m_changes.front());
}

void PreviewView::updateChanges()
{
    m_changes.clear();
    std::vector<ChangeStrip::Mark> marks;
    int shown = 0; // the marks sit where their rows are among the rows shown (folded events hidden)
    for (int r = 0; r < m_leftModel->rowCount(); ++r) {
        if (m_result)
            if (const Fate f = m_leftModel->fate(r); f != Fate::Kept) {
                m_changes.push_back(r);
                marks.push_back({r, fateAccent(f, m_leftModel->darkPalette()), shown});
            }
        shown += !m_leftModel->isFolded(r);
    }
    m_strip->setMarks(shown, std::move(marks));
    updateChangeLabel();
}

void PreviewView::applyFolds()
{
    // Only rows that change state are touched: hiding a row costs the view a persistent index.
    const bool fold = m_foldEvents->isChecked();
    for (auto [view, model] : {std::pair{m_left, m_leftModel}, std::pair{m_right, m_rightModel}}) {
        std::vector<int> &hidden = view == m_left ? m_leftHidden : m_rightHidden;
        view->setUpdatesEnabled(false);
        for (const int row : hidden)
            if (row < model->rowCount())
                view->setRowHidden(row, {}, false);
        hidden.clear();
        model->setFoldEvents(fold);
        for (int row = 0; row < model->rowCount(); ++row)
            if (model->isFolded(row)) {
                view->setRowHidden(row, {}, true);
                hidden.push_back(row);
            }
        view->setUpdatesEnabled(true);
    }
}

int PreviewView::currentChange() const
{
    const QModelIndex current = m_left->currentIndex();
    if (!current.isValid())
        return -1;
    const auto it = std::lower_bound(m_changes.begin(), m_changes.end(), current.row());
    return it != m_changes.end() && *it == current.row() ? int(it - m_changes.begin()) : -1;
}

void PreviewView::updateChangeLabel()
{
    const int n = int(m_changes.size());
    const int k = currentChange();
    m_changeLabel->setText(!m_result ? QString()
                           : n == 0  ? tr("no change")
                           : k >= 0  ? tr("change %1 of %2").arg(k + 1).arg(n)
                                     : tr("%1 changes").arg(n));
    m_nextButton->setEnabled(n > 0);
    m_previousButton->setEnabled(n > 0);
}

void PreviewView::nextChange()
{
    if (m_changes.empty())
        return;
    const QModelIndex current = m_left->currentIndex();
    const int from = current.isValid() ? current.row() : -1;
    const auto it = std::upper_bound(m_changes.begin(), m_changes.end(), from);
    selectOriginal(it != m_changes.end() ? *it : m_changes.front()); // wraps around
}

void PreviewView::previousChange()
{
    if (m_changes.empty())
        return;
    const QModelIndex current = m_left->currentIndex();
    const int from = current.isValid() ? current.row() : m_leftModel->rowCount();
    const auto it = std::lower_bound(m_changes.begin(), m_changes.end(), from);
    selectOriginal(it != m_changes.begin() ? *std::prev(it) : m_changes.back()); // wraps around
}

void PreviewView::setDetailsVisible(bool visible)
{
    m_detailsButton->setChecked(visible);
    m_details->setVisible(visible);
}

void PreviewView::selectOriginal(int transcriptIndex)
{
    const QModelIndex i = m_leftModel->index(transcriptIndex, 0);
    if (!i.isValid())
        return;
    m_left->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_left->scrollTo(i);
}

void PreviewView::selectSlot(int slot)
{
    const QModelIndex i = m_rightModel->index(slot, 0);
    if (!i.isValid())
        return;
    m_right->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_right->scrollTo(i);
}

void PreviewView::currentChanged(bool fromLeft, const QModelIndex &current)
{
    ResultModel *model = fromLeft ? m_leftModel : m_rightModel;
    LongLineTextView *ownText = fromLeft ? m_leftText : m_rightText;
    LongLineTextView *otherText = fromLeft ? m_rightText : m_leftText;
    ownText->setText(current.isValid() ? current.data(FullTextRole).toString() : QString());
    if (m_syncing || !current.isValid())
        return;
    const int row = current.row();
    const int partner = model->partnerRow(row);
    QTreeView *other = fromLeft ? m_right : m_left;
    ResultModel *otherModel = fromLeft ? m_rightModel : m_leftModel;
    m_syncing = true;
    if (partner >= 0 && partner < otherModel->rowCount()) {
        const QModelIndex target = otherModel->index(partner, current.column());
        other->selectionModel()->setCurrentIndex(target, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        other->scrollTo(target);
        otherText->setText(target.data(FullTextRole).toString());
        m_sync->clear();
    } else {
        other->selectionModel()->clear();
        QString why = model->reason(row);
        // Reasons often start with the fate itself ("summarized: before ..."); say it once.
        const QString prefix = fateLabel(model->fate(row)) + QLatin1Char(':');
        if (why.startsWith(prefix))
            why = why.mid(prefix.size()).trimmed();
        QString say;
        if (!m_result)
            say = tr("No preview yet: run a strategy to see its result.");
        else if (fromLeft)
            say = tr("Message #%1 was %2 and is not in the result%3.")
                      .arg(row + 1)
                      .arg(fateLabel(model->fate(row)), why.isEmpty() ? QString() : QStringLiteral(" (") + why + QLatin1Char(')'));
        else
            say = tr("Result message %1 was inserted%2; it is not in the original.").arg(row + 1).arg(why.isEmpty() ? QString() : QStringLiteral(" (") + why + QLatin1Char(')'));
        m_sync->setText(say);
        otherText->setText(say);
    }
    m_syncing = false;
}

void PreviewView::scrolled(bool fromLeft)
{
    if (m_syncing || !m_result)
        return;
    QTreeView *view = fromLeft ? m_left : m_right;
    QTreeView *other = fromLeft ? m_right : m_left;
    ResultModel *model = fromLeft ? m_leftModel : m_rightModel;
    ResultModel *otherModel = fromLeft ? m_rightModel : m_leftModel;
    const QModelIndex top = view->indexAt(QPoint(1, 1));
    if (!top.isValid())
        return;
    // A top row without a partner (removed, summarized, inserted): show the other side from just after
    // the last row that has one, which is where a replacement (an inserted summary) sits.
    int partner = model->partnerRow(top.row());
    if (partner < 0) {
        partner = 0;
        for (int r = top.row() - 1; r >= 0; --r)
            if (const int p = model->partnerRow(r); p >= 0) {
                partner = p + 1;
                break;
            }
    }
    partner = std::min(partner, otherModel->rowCount() - 1);
    if (partner < 0)
        return;
    m_syncing = true;
    other->scrollTo(otherModel->index(partner, 0), QAbstractItemView::PositionAtTop);
    m_syncing = false;
}

QString PreviewView::statsText() const
{
    QTextDocument doc;
    doc.setHtml(m_stats->text() + QStringLiteral("<br>") + m_fates->text());
    return doc.toPlainText();
}

QString PreviewView::syncMessage() const
{
    return m_sync->text();
}

QString PreviewView::detailsText() const
{
    return m_details->toPlainText();
}

void PreviewView::updateHeader()
{
    m_fates->clear();
    m_details->clear();
    m_note->clear();
    m_stats->setToolTip({});
    if (!m_original) {
        m_stats->setText(tr("No transcript."));
        return;
    }
    if (!m_result) {
        m_stats->setText(tr("<b>No preview</b> — choose a strategy and press Preview (Ctrl+P)."));
        return;
    }
    const strategy::Result &r = *m_result;
    const strategy::Stats &s = r.stats;
    const strategy::Strategy *st = strategy::find(r.strategy);
    const QString title = (st ? qs(st->title()) : qs(r.strategy)).toHtmlEscaped();
    const bool dark = theme::isDark(palette());

    QString validity;
    if (!r.validityChecked)
        validity = tr("validity not checked");
    else if (r.violations.empty())
        validity = QStringLiteral("<span style='color:%1'>✓ %2</span>").arg(fateAccent(Fate::Inserted, dark).name(), tr("valid"));
    else
        validity = QStringLiteral("<span style='color:%1'>✗ %2</span>")
                       .arg(fateAccent(Fate::Removed, dark).name(), tr("%n violation(s)", nullptr, static_cast<int>(r.violations.size())));

    QStringList parts;
    parts << tr("live context <b>%L1 → %L2</b> (−%3)").arg(s.liveBefore).arg(s.liveAfter).arg(percent(s.liveReduction));
    parts << tr("conversation %L1 → %L2 (−%3, plain estimate)").arg(s.tokensBefore).arg(s.tokensAfter).arg(percent(s.reduction));
    parts << tr("messages %L1 → %L2").arg(s.messagesBefore).arg(s.messagesAfter);
    parts << tr("efficiency %1").arg(s.efficiency, 0, 'f', 3);
    parts << (s.factsTotal ? tr("facts %L1/%L2 (%3)").arg(s.factsKept).arg(s.factsTotal).arg(percent(s.factRetention))
                           : tr("facts: none found"));
    parts << tr("cache prefix %L1 tokens (%2)").arg(s.cachePrefixTokens).arg(percent(s.cachePrefixShare));
    parts << tr("%1 ms").arg(s.millis, 0, 'f', s.millis < 10 ? 2 : 0);
    parts << validity;
    m_stats->setText(QStringLiteral("<b>%1</b>%2: ").arg(title, r.changed ? QString() : tr(" (no change)"))
                     + parts.join(QStringLiteral(" · ")));

    QStringList fates;
    for (std::size_t f = 0; f < strategy::kFateCount; ++f) {
        if (!s.fateCounts[f])
            continue;
        const auto fate = static_cast<Fate>(f);
        fates << QStringLiteral("<span style='color:%1'>■</span> %2 %L3")
                     .arg(fateAccent(fate, dark).name(), fateLabel(fate))
                     .arg(s.fateCounts[f]);
    }
    m_fates->setText(fates.join(QStringLiteral("&nbsp;&nbsp; ")));
    m_note->setText(qs(r.note));

    QStringList details;
    details << tr("Note: %1").arg(qs(r.note));
    if (!r.log.empty()) {
        details << tr("Log:");
        for (const std::string &line : r.log)
            details << QStringLiteral("  ") + qs(line);
    }
    QStringList tip;
    if (r.validityChecked) {
        details << (r.violations.empty() ? tr("Validity: no violations") : tr("Violations (result message: reason):"));
        for (const Violation &v : r.violations) {
            const QString line = v.message >= 0 ? QStringLiteral("%1: %2").arg(v.message).arg(qs(v.reason)) : qs(v.reason);
            details << QStringLiteral("  ") + line;
            if (tip.size() < kTooltipViolations)
                tip << line.toHtmlEscaped();
        }
        if (r.violations.size() > static_cast<std::size_t>(kTooltipViolations))
            tip << tr("… and %n more (see Details)", nullptr, static_cast<int>(r.violations.size()) - kTooltipViolations);
    }
    m_details->setPlainText(details.join(QLatin1Char('\n')));
    if (!tip.isEmpty())
        m_stats->setToolTip(tip.join(QStringLiteral("<br>")));
    // Violations are worth seeing without a click.
    if (!r.violations.empty())
        setDetailsVisible(true);
}

void PreviewView::updatePalette()
{
    const bool dark = theme::isDark(palette());
    m_leftModel->setDarkPalette(dark);
    m_rightModel->setDarkPalette(dark);
    updateChanges(); // the strip's colours
}

void PreviewView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        updatePalette();
        updateHeader();
    }
}

} // namespace cl::gui
