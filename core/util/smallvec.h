// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <utility>

namespace cl::util {

// A vector with N elements stored inline (heap only beyond N): a 100 000-message analysis holds
// several short lists per message (reasons, per-block priorities), and one malloc each dominated
// its run time. Offers the std::vector subset the consumers use (range-for, size, empty, [], front,
// back, push_back, emplace_back, reserve, assign, clear).
template <class T, std::size_t N> class SmallVec
{
public:
    using value_type = T;
    using size_type = std::size_t;
    using iterator = T *;
    using const_iterator = const T *;
    using reference = T &;
    using const_reference = const T &;

    SmallVec() = default;
    SmallVec(std::initializer_list<T> il)
    {
        for (const T &x : il) push_back(x);
    }
    SmallVec(const SmallVec &o) { copyFrom(o); }
    SmallVec(SmallVec &&o) noexcept { moveFrom(o); }
    SmallVec &operator=(const SmallVec &o)
    {
        if (this != &o) {
            clear();
            copyFrom(o);
        }
        return *this;
    }
    SmallVec &operator=(SmallVec &&o) noexcept
    {
        if (this != &o) {
            release();
            moveFrom(o);
        }
        return *this;
    }
    ~SmallVec() { release(); }

    std::size_t size() const { return size_; }
    std::size_t capacity() const { return cap_; }
    bool empty() const { return size_ == 0; }
    T *data() { return data_; }
    const T *data() const { return data_; }
    T *begin() { return data_; }
    T *end() { return data_ + size_; }
    const T *begin() const { return data_; }
    const T *end() const { return data_ + size_; }
    T &operator[](std::size_t i) { return data_[i]; }
    const T &operator[](std::size_t i) const { return data_[i]; }
    T &at(std::size_t i)
    {
        if (i >= size_)
            throw std::out_of_range("SmallVec::at");
        return data_[i];
    }
    const T &at(std::size_t i) const
    {
        if (i >= size_)
            throw std::out_of_range("SmallVec::at");
        return data_[i];
    }
    T &front() { return data_[0]; }
    const T &front() const { return data_[0]; }
    T &back() { return data_[size_ - 1]; }
    const T &back() const { return data_[size_ - 1]; }

    void reserve(std::size_t n)
    {
        if (n <= cap_)
            return;
        T *p = static_cast<T *>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
        for (std::size_t i = 0; i < size_; ++i) {
            ::new (static_cast<void *>(p + i)) T(std::move(data_[i]));
            data_[i].~T();
        }
        freeHeap();
        data_ = p;
        cap_ = std::uint32_t(n);
    }
    template <class... A> T &emplace_back(A &&...a)
    {
        if (size_ == cap_) {
            // Built first: an argument may refer to an element the reallocation moves.
            T tmp{std::forward<A>(a)...};
            reserve(std::size_t(cap_) * 2);
            T *p = ::new (static_cast<void *>(data_ + size_)) T(std::move(tmp));
            ++size_;
            return *p;
        }
        T *p = ::new (static_cast<void *>(data_ + size_)) T{std::forward<A>(a)...};
        ++size_;
        return *p;
    }
    void push_back(const T &x) { emplace_back(x); }
    void push_back(T &&x) { emplace_back(std::move(x)); }
    void pop_back() { data_[--size_].~T(); }
    void clear()
    {
        for (std::size_t i = 0; i < size_; ++i)
            data_[i].~T();
        size_ = 0;
    }
    void assign(std::size_t n, const T &x)
    {
        clear();
        reserve(n);
        for (std::size_t i = 0; i < n; ++i)
            ::new (static_cast<void *>(data_ + i)) T(x);
        size_ = n;
    }
    friend bool operator==(const SmallVec &a, const SmallVec &b)
    {
        return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    bool onHeap() const { return data_ != reinterpret_cast<const T *>(buf_); }
    void freeHeap()
    {
        if (onHeap())
            ::operator delete(data_, std::align_val_t(alignof(T)));
    }
    void release()
    {
        clear();
        freeHeap();
        data_ = reinterpret_cast<T *>(buf_);
        cap_ = N;
    }
    void copyFrom(const SmallVec &o)
    {
        reserve(o.size_);
        for (std::size_t i = 0; i < o.size_; ++i)
            ::new (static_cast<void *>(data_ + i)) T(o.data_[i]);
        size_ = o.size_;
    }
    // Takes o's heap block, or moves its inline elements; o is left empty and inline.
    void moveFrom(SmallVec &o)
    {
        if (o.onHeap()) {
            data_ = o.data_;
            cap_ = o.cap_;
            size_ = o.size_;
            o.data_ = reinterpret_cast<T *>(o.buf_);
            o.cap_ = N;
            o.size_ = 0;
            return;
        }
        for (std::size_t i = 0; i < o.size_; ++i)
            ::new (static_cast<void *>(data_ + i)) T(std::move(o.data_[i]));
        size_ = o.size_;
        o.clear();
    }

    T *data_ = reinterpret_cast<T *>(buf_);
    std::uint32_t size_ = 0, cap_ = N;
    alignas(T) unsigned char buf_[N * sizeof(T)];
};

} // namespace cl::util
