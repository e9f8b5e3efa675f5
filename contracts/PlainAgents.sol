// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @dev Minimal ERC-721 receiver interface (EIP-721).
interface IERC721Receiver {
    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data)
        external
        returns (bytes4);
}

/// @title PlainAgents
/// @notice Minimal, dependency-free ERC-721 without ERC-721 Enumerable: the base of DemoAgents (the
///         dev chains' agent collection), and deployed alone in tests as a collection whose holders
///         cannot be listed (the dashboard then asks for a token id).
/// @dev `mint` is open to anyone: deploy this contract on development chains only.
///      Custom errors mirror OpenZeppelin Contracts 5 (IERC6093) so client-side decoding matches.
contract PlainAgents {
    // ---------------------------------------------------------------------
    // Events (EIP-721)
    // ---------------------------------------------------------------------

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    // ---------------------------------------------------------------------
    // Errors (OpenZeppelin 5 / ERC-6093)
    // ---------------------------------------------------------------------

    error ERC721InvalidOwner(address owner);
    error ERC721NonexistentToken(uint256 tokenId);
    error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner);
    error ERC721InvalidSender(address sender);
    error ERC721InvalidReceiver(address receiver);
    error ERC721InsufficientApproval(address operator, uint256 tokenId);
    error ERC721InvalidApprover(address approver);
    error ERC721InvalidOperator(address operator);

    // ---------------------------------------------------------------------
    // Storage
    // ---------------------------------------------------------------------

    string private constant NAME = "Demo Agents";
    string private constant SYMBOL = "AGENT";

    mapping(uint256 tokenId => address) private _owners;
    mapping(address owner => uint256) internal _balances;
    mapping(uint256 tokenId => address) private _tokenApprovals;
    mapping(address owner => mapping(address operator => bool)) private _operatorApprovals;

    // ---------------------------------------------------------------------
    // ERC-165
    // ---------------------------------------------------------------------

    function supportsInterface(bytes4 interfaceId) public pure virtual returns (bool) {
        return interfaceId == 0x01ffc9a7 // ERC165
            || interfaceId == 0x80ac58cd // ERC721
            || interfaceId == 0x5b5e139f; // ERC721Metadata
    }

    // ---------------------------------------------------------------------
    // ERC-721 Metadata
    // ---------------------------------------------------------------------

    function name() external pure returns (string memory) {
        return NAME;
    }

    function symbol() external pure returns (string memory) {
        return SYMBOL;
    }

    /// @notice No off-chain metadata for demo agents: empty URI for existing tokens.
    function tokenURI(uint256 tokenId) external view returns (string memory) {
        _requireOwned(tokenId);
        return "";
    }

    // ---------------------------------------------------------------------
    // ERC-721 views
    // ---------------------------------------------------------------------

    function balanceOf(address owner) external view returns (uint256) {
        if (owner == address(0)) revert ERC721InvalidOwner(address(0));
        return _balances[owner];
    }

    function ownerOf(uint256 tokenId) external view returns (address) {
        return _requireOwned(tokenId);
    }

    function getApproved(uint256 tokenId) external view returns (address) {
        _requireOwned(tokenId);
        return _tokenApprovals[tokenId];
    }

    function isApprovedForAll(address owner, address operator) public view returns (bool) {
        return _operatorApprovals[owner][operator];
    }

    // ---------------------------------------------------------------------
    // ERC-721 mutations
    // ---------------------------------------------------------------------

    function approve(address to, uint256 tokenId) external {
        address owner = _requireOwned(tokenId);
        if (msg.sender != owner && !isApprovedForAll(owner, msg.sender)) {
            revert ERC721InvalidApprover(msg.sender);
        }
        _tokenApprovals[tokenId] = to;
        emit Approval(owner, to, tokenId);
    }

    function setApprovalForAll(address operator, bool approved) external {
        if (operator == address(0)) revert ERC721InvalidOperator(operator);
        _operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        address owner = _requireOwned(tokenId);
        if (owner != from) revert ERC721IncorrectOwner(from, tokenId, owner);
        if (
            msg.sender != owner && !isApprovedForAll(owner, msg.sender) && _tokenApprovals[tokenId] != msg.sender
        ) {
            revert ERC721InsufficientApproval(msg.sender, tokenId);
        }

        delete _tokenApprovals[tokenId];
        unchecked {
            _balances[from] -= 1;
            _balances[to] += 1;
        }
        _owners[tokenId] = to;
        _afterMove(from, to, tokenId);
        emit Transfer(from, to, tokenId);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId) external {
        safeTransferFrom(from, to, tokenId, "");
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes memory data) public {
        transferFrom(from, to, tokenId);
        _checkOnERC721Received(msg.sender, from, to, tokenId, data);
    }

    // ---------------------------------------------------------------------
    // Dev-only minting
    // ---------------------------------------------------------------------

    /// @notice Mint `tokenId` to `to`. Open to anyone: dev chains only.
    function mint(address to, uint256 tokenId) external {
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        if (_owners[tokenId] != address(0)) revert ERC721InvalidSender(address(0));
        unchecked {
            _balances[to] += 1;
        }
        _owners[tokenId] = to;
        _afterMove(address(0), to, tokenId);
        emit Transfer(address(0), to, tokenId);
    }

    // ---------------------------------------------------------------------
    // Internals
    // ---------------------------------------------------------------------

    /// @dev Runs once `tokenId` moved from `from` (zero: minted) to `to`, balances and owner updated.
    function _afterMove(address from, address to, uint256 tokenId) internal virtual {}

    function _requireOwned(uint256 tokenId) internal view returns (address owner) {
        owner = _owners[tokenId];
        if (owner == address(0)) revert ERC721NonexistentToken(tokenId);
    }

    function _checkOnERC721Received(address operator, address from, address to, uint256 tokenId, bytes memory data)
        private
    {
        if (to.code.length == 0) return;
        try IERC721Receiver(to).onERC721Received(operator, from, tokenId, data) returns (bytes4 retval) {
            if (retval != IERC721Receiver.onERC721Received.selector) revert ERC721InvalidReceiver(to);
        } catch (bytes memory reason) {
            if (reason.length == 0) revert ERC721InvalidReceiver(to);
            assembly ("memory-safe") {
                revert(add(reason, 0x20), mload(reason))
            }
        }
    }
}
