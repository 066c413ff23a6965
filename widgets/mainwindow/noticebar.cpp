// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/noticebar.h"

#include <QDesktopServices>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPalette>
#include <QPushButton>
#include <QStyle>
#include <QTimer>
#include <QUrl>

namespace cl::gui {

NoticeBar::NoticeBar(QWidget *parent)
    : QFrame(parent)
    , m_text(new QLabel(this))
    , m_reveal(new QPushButton(tr("Show in Folder"), this))
    , m_close(new QPushButton(this))
    , m_timer(new QTimer(this))
{
    setObjectName(QStringLiteral("noticeBar"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_text->setObjectName(QStringLiteral("noticeText"));
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reveal->setObjectName(QStringLiteral("noticeReveal"));
    m_close->setObjectName(QStringLiteral("noticeClose"));
    m_close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    m_close->setFlat(true);
    m_close->setToolTip(tr("Close"));
    m_close->setAccessibleName(tr("Close the notice"));
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(8, 3, 3, 3);
    row->addWidget(m_text, 1);
    row->addWidget(m_reveal);
    row->addWidget(m_close);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &QWidget::hide);
    connect(m_close, &QPushButton::clicked, this, &QWidget::hide);
    connect(m_reveal, &QPushButton::clicked, this, &NoticeBar::revealFile);
    hide();
}

void NoticeBar::tell(const QString &text, Kind kind, const QString &file, int timeoutMs)
{
    m_kind = kind;
    m_file = file;
    m_text->setText(text);
    m_reveal->setVisible(!file.isEmpty());
    // Tinted from the palette so that light and dark themes both read: highlight for news,
    // a red wash for a failure.
    QPalette p = palette();
    const QColor base = p.color(QPalette::Window);
    const QColor tint = kind == Kind::Failure ? QColor(220, 50, 47) : p.color(QPalette::Highlight);
    const auto mix = [&](const QColor &a, const QColor &b, double t) {
        return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t), float(a.greenF() * (1 - t) + b.greenF() * t),
                                float(a.blueF() * (1 - t) + b.blueF() * t));
    };
    p.setColor(QPalette::Window, mix(base, tint, 0.22));
    setPalette(p);
    show();
    if (kind == Kind::Failure || timeoutMs <= 0)
        m_timer->stop();
    else
        m_timer->start(timeoutMs);
}

QString NoticeBar::text() const
{
    return isHidden() ? QString() : m_text->text();
}

void NoticeBar::revealFile()
{
    const QFileInfo info(m_file);
    QDesktopServices::openUrl(QUrl::fromLocalFile(info.absolutePath()));
}

} // namespace cl::gui
